/** Test helpers for 3-D Secure: a buyer's browser data, and reading the sandbox ACS's pages as a browser would. */
export const DEVICE = {
  browserAcceptHeader: 'text/html',
  browserColorDepth: '24',
  browserJavaEnabled: false,
  browserLanguage: 'pt-BR',
  browserScreenHeight: '900',
  browserScreenWidth: '1440',
  browserTimeZone: '180',
  browserUserAgent: 'Mozilla/5.0',
  httpBrowserIp: '198.51.100.7',
};

/** The value of a hidden input of an HTML page. */
export const field = (html: string, name: string) => new RegExp(`name="${name}" value="([^"]*)"`).exec(html)?.[1]?.replace(/&#(\d+);/g, (_, c: string) => String.fromCharCode(Number(c)));

/** An inject's form post. */
export const form = (fields: Record<string, string>) => ({ payload: new URLSearchParams(fields).toString(), headers: { 'content-type': 'application/x-www-form-urlencoded' } });
