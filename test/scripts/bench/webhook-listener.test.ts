// Scenario 9's webhook receiver (scripts/bench/webhook-listener.ts): answers 200 and counts POSTs.
import { describe, expect, it } from 'vitest';
import { startWebhookListener } from '../../../scripts/bench/webhook-listener.ts';

describe('the webhook listener', () => {
  it('answers every request 200, counts only the POSTs, and stops listening when closed', async () => {
    const listener = await startWebhookListener();
    expect(listener.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/hook$/);
    const post = await fetch(listener.url, { method: 'POST', body: '{"serial":"X"}' });
    expect([post.status, await post.text()]).toEqual([200, '{}']);
    expect((await fetch(listener.url)).status).toBe(200);
    await fetch(listener.url, { method: 'POST', body: 'a=b' });
    expect(listener.received()).toBe(2);
    await listener.close();
    await expect(fetch(listener.url, { method: 'POST' })).rejects.toThrow();
  });
});
