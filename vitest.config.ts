import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    pool: 'forks',
    testTimeout: 20000,
    hookTimeout: 30000,
    // Low scrypt cost keeps login-heavy tests fast; production uses the default (2^15).
    env: { PASSWORD_HASH_COST: '10' },
  },
});
