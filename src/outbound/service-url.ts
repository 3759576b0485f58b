/** Answers by throwing: the setting's or field's error, worded for whoever set it. */
export type Fail = (message: string) => never;

/**
 * The base URL of an external service we call (an acquirer, a Pix PSP, or an operator's proxy in
 * front of one): absolute http(s), no credentials in it (`credentialsHint` says where they go
 * instead), no query or fragment; answered without its trailing slashes.
 */
export function serviceUrl(value: string, name: string, fail: Fail, credentialsHint: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return fail(`${name} must be an absolute http(s) URL, got "${value}"`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') fail(`${name} must be an http(s) URL, got "${value}"`);
  if (url.username || url.password) fail(`${name} must not carry credentials (${credentialsHint})`);
  if (url.search || url.hash) fail(`${name} must not have a query or fragment`);
  return url.toString().replace(/\/+$/, '');
}
