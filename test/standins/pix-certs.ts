/**
 * Throwaway certificates for the Pix PSP stand-in's mutual TLS, made with `openssl` at test time
 * in a temporary folder (never committed): a CA, the PSP's server certificate for 127.0.0.1 and
 * localhost, and the gateway's client certificate, both signed by the CA.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface PixTestCerts {
  dir: string;
  caFile: string;
  serverCertFile: string;
  serverKeyFile: string;
  clientCertFile: string;
  clientKeyFile: string;
  /** A client certificate from another CA: the PSP must refuse it. */
  strangerCertFile: string;
  strangerKeyFile: string;
  remove(): void;
}

export function makePixTestCerts(): PixTestCerts {
  const dir = mkdtempSync(join(tmpdir(), 'pix-mtls-'));
  const f = (name: string) => join(dir, name);
  const openssl = (...args: string[]) => execFileSync('openssl', args, { stdio: 'pipe' });
  const selfSigned = (name: string, subject: string) =>
    openssl('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', f(`${name}.key`), '-out', f(`${name}.crt`), '-days', '2', '-subj', subject);
  const signed = (name: string, subject: string, ext: string) => {
    openssl('req', '-new', '-newkey', 'rsa:2048', '-nodes', '-keyout', f(`${name}.key`), '-out', f(`${name}.csr`), '-subj', subject);
    writeFileSync(f(`${name}.ext`), ext);
    openssl('x509', '-req', '-in', f(`${name}.csr`), '-CA', f('ca.crt'), '-CAkey', f('ca.key'), '-CAcreateserial', '-out', f(`${name}.crt`), '-days', '2', '-extfile', f(`${name}.ext`));
  };
  selfSigned('ca', '/CN=Pix stand-in test CA');
  signed('server', '/CN=localhost', 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n');
  signed('client', '/CN=gateway test client', 'extendedKeyUsage=clientAuth\n');
  selfSigned('stranger', '/CN=stranger');
  return {
    dir,
    caFile: f('ca.crt'),
    serverCertFile: f('server.crt'),
    serverKeyFile: f('server.key'),
    clientCertFile: f('client.crt'),
    clientKeyFile: f('client.key'),
    strangerCertFile: f('stranger.crt'),
    strangerKeyFile: f('stranger.key'),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
