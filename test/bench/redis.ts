/**
 * Bench suite `store-redis`: the redis adapter on a real redis-server holding
 * 10,000 published skills.
 *
 * - publish: the 10,000 skills are seeded through the adapter's own `publish`
 *   (validation, hashing and the Lua script), 64 in flight at a time, in five
 *   rounds of 2,000. Each round is followed by its baseline: the same bytes the
 *   round stored (read back untimed), written again under another prefix with
 *   pipelined HSET/ZADD, 64 skills per pipeline. Seeding through `publish` keeps the
 *   data exactly what publish produces, and it is the throughput being measured.
 * - listMetadata(): against one HVALS of the same catalog hash with ioredis (the raw
 *   read of the same keys, without parsing), interleaved; target ratio <= 2. Twice:
 *   reading an unchanged catalog again (the adapter serves it from its last parse
 *   once the bytes compare equal), and reading after another client changed one
 *   entry before every read (each read parses and sorts all 10,000 again; both
 *   sides make the same change, one HSET, before their read).
 * - round trips per list call and per resolveCandidates call, counted on the wire.
 */
import { performance } from 'node:perf_hooks';
import { Redis } from 'ioredis';
import { openRedisStore } from '../../core/store/redis';
import { redisKeyspace } from '../../core/store/redisKeyspace';
import type { CandidateRequest, SkillStore } from '../../core/store/types';
import { startRedis } from '../helpers/redis';
import { startTcpProxy } from '../helpers/tcpProxy';
import { compare, median, type BenchRow } from './harness';

const SUITE = 'store-redis';
const SKILLS = 10_000;
const ROUNDS = 5;
const CONCURRENCY = 64;
const DEPLOYMENT = 'bench';
const NAMESPACES = 20;

function packageText(i: number): string {
  const domain = ['travel', 'finance', 'support', 'research'][i % 4]!;
  return JSON.stringify({
    display_name: `Bench skill ${i}`,
    description: `Use when a request asks for the ${domain} checks that bench skill ${i} covers, such as limits and inputs.`,
    domains: [domain],
    tags: [`tag-${i % 7}`, 'bench'],
    planning_instructions: [`Check the ${domain} inputs of case ${i} before planning the next step.`, 'Prefer the smallest tool call that answers.'],
    response_instructions: ['State which checks ran and what they found.'],
    tool_hints: ['run_checks'],
    resources: [
      {
        name: 'checklist',
        description: 'A compact checklist for the review.',
        load_when: 'Load when the request asks for the detailed checklist.',
        applies_to: ['planning'],
        required_when_selected: false,
        content_type: 'text/markdown',
        content: `Checklist ${i}: verify inputs, outputs and error codes. `.repeat(8),
      },
    ],
    activation_examples: { should_activate: [`Run the ${domain} checks for case ${i}`], should_not_activate: ['Book a flight to Oslo'] },
    change_reason: `Bench revision of skill ${i}`,
  });
}

const idOf = (i: number) => ({ namespace: `bench-ns-${i % NAMESPACES}`, name: `skill-${i}` });

async function inParallel(count: number, limit: number, fn: (i: number) => Promise<unknown>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const i = next++;
      await fn(i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, count) }, worker));
}

/** The commands that store skill `i` again under `rawPrefix`, with the bytes the adapter stored. */
async function capturedWrites(raw: Redis, from: number, to: number, rawPrefix: string): Promise<string[][][]> {
  const ks = redisKeyspace(DEPLOYMENT);
  const read = raw.pipeline();
  for (let i = from; i < to; i++) {
    const id = idOf(i);
    read.hgetall(ks.version(id, 1));
    read.hgetall(ks.state(id));
    read.hget(ks.catalog, `${id.namespace}/${id.name}`);
    read.zrange(ks.history(id), '0', '-1', 'WITHSCORES');
  }
  const replies = (await read.exec()) ?? [];
  const out: string[][][] = [];
  for (let i = from, r = 0; i < to; i++, r += 4) {
    const id = idOf(i);
    const version = replies[r]?.[1] as Record<string, string>;
    const state = replies[r + 1]?.[1] as Record<string, string>;
    const meta = replies[r + 2]?.[1] as string;
    const history = replies[r + 3]?.[1] as string[];
    const key = `${rawPrefix}${id.namespace}/${id.name}`;
    out.push([
      ['hset', `${key}:v:1`, ...Object.entries(version).flat()],
      ['hset', `${key}:state`, ...Object.entries(state).flat()],
      ['hset', `${rawPrefix}catalog`, `${id.namespace}/${id.name}`, meta],
      ['zadd', `${key}:history`, history[1] ?? '1', history[0] ?? ''],
    ]);
  }
  return out;
}

/** Runs the suite and returns its rows. */
export async function bench(): Promise<BenchRow[]> {
  const server = await startRedis();
  const proxy = await startTcpProxy(server.processes[0]!.port);
  const raw = new Redis(server.url);
  let store: SkillStore | undefined;
  let counted: SkillStore | undefined;
  try {
    store = await openRedisStore(`${server.url}?deployment=${DEPLOYMENT}`);
    const texts = Array.from({ length: SKILLS }, (_, i) => packageText(i));
    const perRound = SKILLS / ROUNDS;
    const publishMs: number[] = [];
    const baselineMs: number[] = [];
    const rawPrefix = 'bench-raw:{bench}:';
    for (let round = 0; round < ROUNDS; round++) {
      const from = round * perRound;
      const s = store;
      let start = performance.now();
      await inParallel(perRound, CONCURRENCY, (k) =>
        s.publish({ id: idOf(from + k), body: texts[from + k], precondition: { kind: 'create' } }),
      );
      publishMs.push((performance.now() - start) / perRound);

      const writes = await capturedWrites(raw, from, from + perRound, rawPrefix);
      start = performance.now();
      for (let b = 0; b < writes.length; b += CONCURRENCY) {
        await raw.pipeline(writes.slice(b, b + CONCURRENCY).flat()).exec();
      }
      baselineMs.push((performance.now() - start) / perRound);
    }
    const pub = median(publishMs);
    const pubBase = median(baselineMs);

    const catalogKey = redisKeyspace(DEPLOYMENT).catalog;
    const listed = await store.listMetadata();
    if (listed.length !== SKILLS) throw new Error(`expected ${SKILLS} skills, listed ${listed.length}`);
    const s = store;
    const list = await compare(
      () => s.listMetadata(),
      () => raw.hvals(catalogKey),
      { rounds: 15, warmup: 3 },
    );
    // One entry's description alternates between two texts of the same length, so every read sees a change.
    const field = `${idOf(5).namespace}/${idOf(5).name}`;
    const original = (await raw.hget(catalogKey, field))!;
    const altered = original.replace('"description":"Use', '"description":"USE');
    if (altered === original) throw new Error(`the catalog entry of ${field} has no description to change`);
    let flip = 0;
    const change = () => raw.hset(catalogKey, field, flip++ % 2 === 0 ? altered : original);
    const changed = await compare(
      async () => {
        await change();
        return s.listMetadata();
      },
      async () => {
        await change();
        return raw.hvals(catalogKey);
      },
      { rounds: 15, warmup: 3 },
    );
    await raw.hset(catalogKey, field, original);
    const filtered = await compare(
      () => s.listMetadata({ namespace: 'bench-ns-3', tag: 'bench' }),
      () => raw.hvals(catalogKey),
      { rounds: 15, warmup: 3 },
    );

    counted = await openRedisStore(`redis://127.0.0.1:${proxy.port}?deployment=${DEPLOYMENT}`);
    proxy.reset();
    await counted.listMetadata();
    const listTrips = proxy.roundTrips();
    const bindings: CandidateRequest[] = Array.from({ length: 100 }, (_, i) => ({ ...idOf(i * 97), version: i % 3 === 0 ? 1 : 'published' }));
    proxy.reset();
    const resolved = await counted.resolveCandidates(bindings);
    const resolveTrips = proxy.roundTrips();
    if (resolved.some((r) => r.status !== 'found')) throw new Error('resolveCandidates missed a seeded skill');
    const c = counted;
    const resolve = await compare(
      () => c.resolveCandidates(bindings),
      () => {
        const m = raw.multi();
        for (const b of bindings) m.hget(catalogKey, `${b.namespace}/${b.name}`);
        return m.exec();
      },
      { rounds: 15, batch: 10, warmup: 3 },
    );

    return [
      {
        suite: SUITE,
        name: `publish (${SKILLS} skills, ${CONCURRENCY} in flight)`,
        medianMs: pub,
        baselineName: 'pipelined HSET/ZADD, same bytes',
        baselineMs: pubBase,
        ratio: pub / pubBase,
        target: 'report',
        note: `${Math.round(1000 / pub)} publishes/s vs ${Math.round(1000 / pubBase)} raw writes/s`,
      },
      {
        suite: SUITE,
        name: `listMetadata() of ${SKILLS}`,
        medianMs: list.subjectMs,
        baselineName: 'HVALS catalog (raw)',
        baselineMs: list.baselineMs,
        ratio: list.subjectMs / list.baselineMs,
        target: 'ratio <= 2',
        met: list.subjectMs / list.baselineMs <= 2,
        note: `${listTrips} round trip(s) per call; the catalog unchanged since the last read`,
      },
      {
        suite: SUITE,
        name: `listMetadata() of ${SKILLS}, one entry changed before each read`,
        medianMs: changed.subjectMs,
        baselineName: 'HSET of the same change, HVALS (raw)',
        baselineMs: changed.baselineMs,
        ratio: changed.subjectMs / changed.baselineMs,
        target: 'ratio <= 2',
        met: changed.subjectMs / changed.baselineMs <= 2,
        note: 'every read parses and sorts the whole catalog',
      },
      {
        suite: SUITE,
        name: `listMetadata(namespace+tag) of ${SKILLS}`,
        medianMs: filtered.subjectMs,
        baselineName: 'HVALS catalog (raw)',
        baselineMs: filtered.baselineMs,
        ratio: filtered.subjectMs / filtered.baselineMs,
        target: 'ratio <= 2',
        met: filtered.subjectMs / filtered.baselineMs <= 2,
        note: `${listed.filter((m) => m.namespace === 'bench-ns-3').length} matches`,
      },
      {
        suite: SUITE,
        name: 'resolveCandidates(100 bindings)',
        medianMs: resolve.subjectMs,
        baselineName: 'MULTI of 100 HGET (raw)',
        baselineMs: resolve.baselineMs,
        ratio: resolve.subjectMs / resolve.baselineMs,
        target: '1 round trip',
        met: resolveTrips === 1,
        note: `${resolveTrips} round trip(s) per call`,
      },
    ];
  } finally {
    await counted?.close();
    await store?.close();
    raw.disconnect();
    await proxy.close();
    await server.stop();
  }
}
