/**
 * A webhook receiver on 127.0.0.1 that answers every POST 204 and counts the deliveries it got
 * per `webhook-id` (Standard Webhooks' message id, the same on every attempt of one message:
 * https://www.standardwebhooks.com/). The chaos soak gives its jobs this URL; its audit
 * (test/fixtures/chaos-audit.ts) expects each job's message exactly once.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** A started receiver: its URL, the deliveries by `webhook-id`, and how to stop it. */
export interface WebhookReceiver {
  url: string;
  /** Requests answered 2xx, by `webhook-id` header (requests without one: key ''). */
  deliveries: Map<string, number>;
  close(): Promise<void>;
}

/** Starts a receiver on a free port of 127.0.0.1. */
export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const deliveries = new Map<string, number>();
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const id = String(req.headers['webhook-id'] ?? '');
      deliveries.set(id, (deliveries.get(id) ?? 0) + 1);
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    deliveries,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
