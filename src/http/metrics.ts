import { Counter, Histogram, Registry, collectDefaultMetrics, type Metric } from 'prom-client';
import type { FastifyInstance } from 'fastify';

/** Prometheus metrics: request counts and latency by route template and status, plus the services' own (`extra`). */
export function installMetrics(app: FastifyInstance, extra: Metric[] = []): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  for (const metric of extra) registry.registerMetric(metric);
  const requests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests by method, route template and status code',
    labelNames: ['method', 'route', 'status_code'],
    registers: [registry],
  });
  const latency = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request latency by method, route template and status code',
    labelNames: ['method', 'route', 'status_code'],
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [registry],
  });

  app.addHook('onResponse', async (request, reply) => {
    // The route template, never the raw URL: ids in paths would explode the label set.
    const route = request.routeOptions.url ?? 'unmatched';
    const labels = { method: request.method, route, status_code: String(reply.statusCode) };
    requests.inc(labels);
    latency.observe(labels, reply.elapsedTime / 1000);
  });
  return registry;
}
