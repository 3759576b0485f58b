import { describe, expect, it } from 'vitest';
import { checkUrlSyntax, isPublicAddress, publicAddressesOf } from '../../src/modules/webhooks/address-policy.js';
import { DELIVERY_BACKOFF, outcomeOf } from '../../src/modules/webhooks/delivery.js';
import { deliveryBody } from '../../src/modules/webhooks/outbox.js';
import { basicAuthProblem, generateSecret, secretKey, sign, verify } from '../../src/modules/webhooks/signature.js';
import { backoffDelayMs } from '../../src/jobs/backoff.js';

describe('Standard Webhooks signature', () => {
  // The reference vector of the Standard Webhooks specification's libraries.
  const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
  const id = 'msg_p5jXN8AQM9LWM0D4loKWxJek';
  const timestamp = 1614265330;
  const body = '{"test": 2432232314}';

  it('matches the specification vector', () => {
    expect(sign(secret, id, timestamp, body)).toBe('v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=');
  });

  it('verifies its own signatures and refuses a changed body, id, timestamp or secret', () => {
    const header = sign(secret, id, timestamp, body);
    expect(verify(secret, id, timestamp, body, header)).toBe(true);
    expect(verify(secret, id, timestamp, body, `v1,bogus ${header}`)).toBe(true);
    expect(verify(secret, id, timestamp, body + ' ', header)).toBe(false);
    expect(verify(secret, 'msg_other', timestamp, body, header)).toBe(false);
    expect(verify(secret, id, timestamp + 1, body, header)).toBe(false);
    expect(verify(generateSecret(), id, timestamp, body, header)).toBe(false);
  });

  it('makes secrets of whsec_ + base64 of 32 random bytes', () => {
    const a = generateSecret();
    expect(a).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(secretKey(a)).toHaveLength(32);
    expect(generateSecret()).not.toBe(a);
  });
});

describe('basicAuth: Base64 of user:password', () => {
  it('accepts canonical Base64 of user:password', () => {
    expect(basicAuthProblem(Buffer.from('user:pass').toString('base64'))).toBeNull();
    expect(basicAuthProblem(Buffer.from('joão:s3nh@:com:dois-pontos').toString('base64'))).toBeNull();
  });

  it.each([
    ['not base64', 'not base64!'],
    ['no colon', Buffer.from('userpass').toString('base64')],
    ['empty user', Buffer.from(':pass').toString('base64')],
    ['missing padding', Buffer.from('user:pas').toString('base64').replace(/=+$/, '')],
    ['control characters', Buffer.from('us\ner:pass').toString('base64')],
    ['not UTF-8', Buffer.from([0xff, 0xfe, 0x3a, 0x41]).toString('base64')],
  ])('refuses %s', (_name, value) => {
    expect(basicAuthProblem(value)).not.toBeNull();
  });
});

describe('webhook URL rules', () => {
  it('wants an absolute http(s) URL without credentials', () => {
    expect(checkUrlSyntax('https://hooks.example.com/x?a=1', { production: true })).toHaveProperty('url');
    expect(checkUrlSyntax('http://127.0.0.1:9999/x', { production: false })).toHaveProperty('url');
    for (const bad of ['/relative', 'hooks.example.com', 'ftp://example.com/x', 'javascript:alert(1)', 'https://user:pw@example.com/']) {
      expect(checkUrlSyntax(bad, { production: false }), bad).toHaveProperty('problem');
    }
    expect(checkUrlSyntax('https://example.com/' + 'a'.repeat(500), { production: false })).toHaveProperty('problem');
  });

  it('wants https in production', () => {
    expect(checkUrlSyntax('http://hooks.example.com/x', { production: true })).toEqual({ problem: 'must use https in production' });
  });

  it('lets only public unicast addresses through', () => {
    for (const ok of ['8.8.8.8', '93.184.216.34', '2606:4700::1111', '::ffff:8.8.8.8']) expect(isPublicAddress(ok), ok).toBe(true);
    const refused = [
      '127.0.0.1', '127.8.9.10', '10.0.0.1', '172.16.5.4', '192.168.1.1', // loopback, RFC 1918
      '169.254.169.254', '100.100.100.200', '0.0.0.0', '255.255.255.255', '224.0.0.1', '192.0.2.1', // metadata, CGNAT, special
      '::1', '::', 'fe80::1', 'fd00:ec2::254', 'fc00::1', '::ffff:127.0.0.1', '::ffff:10.0.0.1', '64:ff9b::a00:1', '2002:a00:1::1', '2001:db8::1',
      'not-an-ip',
    ];
    for (const bad of refused) expect(isPublicAddress(bad), bad).toBe(false);
  });

  it('refuses a host when any of its addresses is not public', async () => {
    const dns = (answers: Record<string, string[]>) => async (host: string) => {
      if (!answers[host]) throw new Error('ENOTFOUND');
      return answers[host];
    };
    const resolve = dns({ 'ok.example': ['93.184.216.34'], 'mixed.example': ['93.184.216.34', '10.1.2.3'], 'empty.example': [] });
    await expect(publicAddressesOf('ok.example', resolve)).resolves.toEqual(['93.184.216.34']);
    await expect(publicAddressesOf('mixed.example', resolve)).rejects.toThrow(/10\.1\.2\.3/);
    await expect(publicAddressesOf('nowhere.example', resolve)).rejects.toThrow(/could not be resolved/);
    await expect(publicAddressesOf('empty.example', resolve)).rejects.toThrow(/could not be resolved/);
    await expect(publicAddressesOf('127.0.0.1', resolve)).rejects.toThrow(/not a public address/);
  });
});

describe('delivery outcome and retry schedule', () => {
  it('counts 2xx as delivered, 400 as rejected and anything else as a retry', () => {
    const r = (statusCode: number | null) => outcomeOf({ statusCode, error: statusCode === null ? 'timeout' : null, durationMs: 1 });
    expect([200, 201, 204, 299].map(r)).toEqual(['Delivered', 'Delivered', 'Delivered', 'Delivered']);
    expect(r(400)).toBe('Rejected');
    expect([301, 401, 404, 409, 410, 422, 429, 500, 503, null].map(r)).toEqual(Array(10).fill('retry'));
  });

  it('starts near a minute and doubles up to three hours, jittered only downwards', () => {
    const none = () => 0;
    const minutes = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].map((n) => backoffDelayMs(DELIVERY_BACKOFF, n, none) / 60_000);
    expect(minutes).toEqual([1, 2, 4, 8, 16, 32, 64, 128, 180, 180]);
    for (let i = 0; i < 200; i++) {
      const d = backoffDelayMs(DELIVERY_BACKOFF, 1);
      expect(d).toBeGreaterThanOrEqual(48_000);
      expect(d).toBeLessThanOrEqual(60_000);
    }
  });
});

describe('notification body', () => {
  it('puts movementId first in the seed body of a webhook and sends a callback payload as stored', () => {
    const payload = JSON.stringify({ nsu: '1', codAuth: 'A', installmentNumber: 0, moment: 'm', type: 'TransactionStatus', oldValue: '', newValue: 'Authorized' });
    expect(deliveryBody({ id: 42, channel: 'webhook', payload })).toBe(
      '{"movementId":42,"nsu":"1","codAuth":"A","installmentNumber":0,"moment":"m","type":"TransactionStatus","oldValue":"","newValue":"Authorized"}',
    );
    expect(deliveryBody({ id: 42, channel: 'callback', payload: '{"paymentId":"p"}' })).toBe('{"paymentId":"p"}');
  });
});
