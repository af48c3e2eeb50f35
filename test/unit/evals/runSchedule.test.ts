import { afterEach, describe, expect, it, vi } from 'vitest';
import type { GenerateRequest, GenerateResult, ModelClient } from '../../../core/models/types';
import { groupedByTurn, nextTurn } from '../../../evals/runSchedule';

const request: GenerateRequest = { messages: [{ role: 'user', content: 'Which skill checks a booking before the trip?' }], temperature: 0, maxOutputTokens: 64 };

function result(text: string): GenerateResult {
  return { text, usage: { inputTokens: 1, outputTokens: 1 }, model: 'test', provider: 'test', latencyMs: 0, costUsd: 0, attempts: [] };
}

/** A model whose every answer arrives in its own timer callback, as answers on separate sockets arrive in their own I/O callbacks. */
function separateCallbacks(log: string[]): ModelClient {
  let n = 0;
  return {
    spec: 'test:separate',
    isBaseline: false,
    generate() {
      const i = n++;
      log.push(`call ${i}`);
      return new Promise((resolve) =>
        setTimeout(() => {
          log.push(`answer ${i}`);
          resolve(result(`answer ${i}`));
        }, 0),
      );
    },
  };
}

async function callers(model: ModelClient, log: string[], count: number): Promise<void> {
  await Promise.all(
    Array.from({ length: count }, async (_, i) => {
      await model.generate(request);
      log.push(`continue ${i}`);
    }),
  );
}

afterEach(() => {
  vi.useRealTimers();
});

describe('groupedByTurn: model calls grouped by event-loop turn', () => {
  it('without it, each caller continues as soon as its own answer arrives, between the other answers', async () => {
    const log: string[] = [];
    await callers(separateCallbacks(log), log, 3);
    expect(log).toEqual(['call 0', 'call 1', 'call 2', 'answer 0', 'continue 0', 'answer 1', 'continue 1', 'answer 2', 'continue 2']);
  });

  it('with it, the answers that arrive in one turn are all taken before any of their callers continues', async () => {
    const log: string[] = [];
    await callers(groupedByTurn(separateCallbacks(log)), log, 3);
    expect(log).toEqual(['call 0', 'call 1', 'call 2', 'answer 0', 'answer 1', 'answer 2', 'continue 0', 'continue 1', 'continue 2']);
  });

  it('sends the calls made in one turn together, at the next turn, and keeps the spec and baseline flag', async () => {
    const log: string[] = [];
    const model = groupedByTurn(separateCallbacks(log));
    expect(model.spec).toBe('test:separate');
    expect(model.isBaseline).toBe(false);
    const pending = model.generate(request);
    log.push('same turn');
    await nextTurn();
    expect(log).toEqual(['same turn', 'call 0']);
    expect((await pending).text).toBe('answer 0');
  });

  it('passes a failed call through unchanged, and its caller too continues at a turn', async () => {
    const failure = new Error('model unavailable');
    const model = groupedByTurn({ spec: 'test:failing', isBaseline: false, generate: () => Promise.reject(failure) });
    await expect(model.generate(request)).rejects.toBe(failure);
  });

  it('waits on no clock a test may fake: a call still completes with the global timers faked', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'setImmediate', 'setInterval'] });
    const model = groupedByTurn({ spec: 'test:instant', isBaseline: true, generate: async () => result('{"activate":[]}') });
    expect((await model.generate(request)).text).toBe('{"activate":[]}');
  });

  it('shares one turn among every caller in it, and makes a fresh one once it has passed', async () => {
    const first = nextTurn();
    expect(nextTurn()).toBe(first);
    await first;
    expect(nextTurn()).not.toBe(first);
  });
});
