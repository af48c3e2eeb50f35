/**
 * Key layout of the redis store (docs/redis-layout.md). Every key of a deployment
 * starts with `truvag3:v1:<deployment>:skills:{<deployment>:skills}:`; the braces
 * are a Redis Cluster hash tag, so all keys of one deployment live in one slot and
 * the publish and delete scripts stay atomic on standalone, Sentinel and Cluster.
 */
import type { SkillId } from '../package/types';
import { checkDeployment } from './redisUrl';

/** Key builders of one deployment. */
export interface RedisKeyspace {
  deployment: string;
  /** Common prefix of every key, hash tag included. */
  prefix: string;
  /** HASH `namespace/name` → body-free catalog JSON of the published revision. */
  catalog: string;
  /** STREAM of body-free audit events (default audit sink). */
  audit: string;
  /** Placeholder passed to the publish script when a request has no Idempotency-Key; never written. */
  noIdempotency: string;
  /** HASH `published`, `last`, `etag`, `manifest_hash`: the mutable state of one skill. */
  state(id: SkillId): string;
  /** HASH of one immutable revision (package, manifest, hashes, resource bodies). */
  version(id: SkillId, version: number): string;
  /** Prefix of {@link version} keys; the publish script appends the number it assigns. */
  versionPrefix(id: SkillId): string;
  /** ZSET score = version, member = body-free history entry JSON. */
  history(id: SkillId): string;
  /** HASH version → deletion time (ISO-8601): the tombstones. */
  tombstones(id: SkillId): string;
  /** HASH of one Idempotency-Key record, by the key's SHA-256 hex; expires after 24 h. */
  idempotency(id: SkillId, keyHashHex: string): string;
}

/** The key prefix of a deployment: `truvag3:v1:<d>:skills:{<d>:skills}:`. */
export function keyPrefix(deployment: string): string {
  checkDeployment(deployment);
  return `truvag3:v1:${deployment}:skills:{${deployment}:skills}:`;
}

/** Builds the keyspace of `deployment` (a slug; 400 otherwise). */
export function redisKeyspace(deployment: string): RedisKeyspace {
  const prefix = keyPrefix(deployment);
  const skill = (id: SkillId) => `${prefix}skill:${id.namespace}/${id.name}`;
  return {
    deployment,
    prefix,
    catalog: `${prefix}catalog`,
    audit: `${prefix}audit`,
    noIdempotency: `${prefix}idem:none`,
    state: (id) => `${skill(id)}:state`,
    version: (id, version) => `${skill(id)}:v:${version}`,
    versionPrefix: (id) => `${skill(id)}:v:`,
    history: (id) => `${skill(id)}:history`,
    tombstones: (id) => `${skill(id)}:tombstones`,
    idempotency: (id, keyHashHex) => `${prefix}idem:${id.namespace}/${id.name}:${keyHashHex}`,
  };
}
