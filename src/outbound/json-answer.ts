import type { IncomingMessage } from 'node:http';

/** An external service's answer: its status and its JSON body (null when there is none). */
export interface ServiceAnswer {
  status: number;
  body: unknown;
}

/** The answer's stream broke (reset, cut) or outgrew its bound: what was sent may have been acted on. */
export class AnswerCut extends Error {}

/**
 * Reads an external service's answer as JSON, at most `maxBytes` of it. An empty body reads as
 * null, and so does a 5xx page that is not JSON (a proxy's error page: the status says enough);
 * a 2xx-4xx that is not JSON is no answer we can use and rejects with that reason.
 */
export function readJsonAnswer(response: IncomingMessage, maxBytes: number): Promise<ServiceAnswer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    response.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) response.destroy(new Error('answer too large'));
      else chunks.push(chunk);
    });
    response.on('error', (error) => reject(new AnswerCut(error.message)));
    response.on('aborted', () => reject(new AnswerCut('the answer was cut off')));
    response.on('end', () => {
      const status = response.statusCode ?? 500;
      const text = Buffer.concat(chunks).toString('utf8').trim();
      try {
        resolve({ status, body: text === '' ? null : JSON.parse(text) });
      } catch {
        if (status < 500) reject(new Error(`answer ${status} was not JSON`));
        else resolve({ status, body: null });
      }
    });
  });
}
