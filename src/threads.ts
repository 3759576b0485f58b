import { Worker, type WorkerOptions } from 'node:worker_threads';

/**
 * A worker thread running the module at `url`, named as it is once built
 * (`new URL('./x-thread.js', import.meta.url)`), so the module is a file the type checker sees.
 *
 * Built, the module is plain JavaScript. Run from the TypeScript sources (npm start, the tests,
 * the benches), the thread needs tsx's loader, and on Node 20 tsx registers it on the main thread
 * only, even when a worker inherits `--import tsx`: tsx-thread.mjs registers it in the thread.
 * tsx then finds `x-thread.ts` for `x-thread.js`, and likewise for what the thread imports.
 */
export function startThread(url: URL, options: WorkerOptions = {}): Worker {
  const fromSources = import.meta.url.endsWith('.ts');
  return new Worker(url, { ...(fromSources && { execArgv: ['--import', new URL('./tsx-thread.mjs', import.meta.url).href] }), ...options });
}
