/**
 * The Lua scripts of the redis store. Mutations are single scripts so every rule
 * that depends on stored state (precondition, idempotency, same-content detection,
 * version assignment, deletion guards) is checked and applied in one atomic step on
 * standalone, Sentinel and Cluster alike. The scripts only decide and write; they
 * return the state they refused on, and the TypeScript side turns that into the same
 * `StoreError` every adapter raises (core/store/history.ts, publication.ts).
 *
 * Keys a script derives itself (the revision hash `…:v:<n>` whose number it
 * assigns) share the deployment's hash tag with the declared keys, so they live
 * in the same cluster slot; docs/redis-layout.md lists them.
 */

/**
 * Publish. KEYS: state, catalog, history, idempotency record (or the unused
 * placeholder). ARGV: 1 catalog field `ns/name`, 2 revision key prefix, 3 has
 * Idempotency-Key (`1`/`0`), 4 ignore an existing record (`1` when it expired by
 * the client's clock), 5 record TTL ms, 6 precondition kind, 7 acceptable ETags
 * (newline separated), 8 manifest hash, 9 created_at, 10/11 ETag prefix/suffix
 * around the version number, 12 catalog JSON head, 13 history JSON head (both
 * completed with `<version>}`), 14 fingerprint, 15 stored result JSON,
 * 16.. field/value pairs of the revision hash.
 *
 * Returns `{'replay', record}`, `{'precondition', current etag or nil}` or
 * `{'ok', outcome, version, etag}`.
 */
export const PUBLISH_LUA = `
local state, catalog, history, idem = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
if ARGV[3] == '1' and ARGV[4] ~= '1' then
  local record = redis.call('HGETALL', idem)
  if #record > 0 then return {'replay', record} end
end
local cur = redis.call('HMGET', state, 'published', 'etag', 'manifest_hash', 'last')
local published = tonumber(cur[1])
if ARGV[6] == 'create' then
  if published then return {'precondition', cur[2]} end
else
  if not published then return {'precondition', false} end
  local matched = false
  for tag in string.gmatch(ARGV[7], '[^\\n]+') do
    if tag == cur[2] then matched = true break end
  end
  if not matched then return {'precondition', cur[2]} end
end
local outcome, version, etag
if published and cur[3] == ARGV[8] then
  outcome, version, etag = 'same_content_noop', published, cur[2]
else
  -- 'last' only grows, so a number is never reused, whatever was deleted.
  version = (tonumber(cur[4]) or 0) + 1
  etag = ARGV[10] .. version .. ARGV[11]
  if published then outcome = 'published' else outcome = 'created' end
  local meta = ARGV[12] .. version .. '}'
  local fields = {}
  for i = 16, #ARGV do fields[#fields + 1] = ARGV[i] end
  fields[#fields + 1] = 'meta'
  fields[#fields + 1] = meta
  redis.call('HSET', ARGV[2] .. version, unpack(fields))
  redis.call('HSET', state, 'published', version, 'last', version, 'etag', etag, 'manifest_hash', ARGV[8])
  redis.call('HSET', catalog, ARGV[1], meta)
  redis.call('ZADD', history, version, ARGV[13] .. version .. '}')
end
if ARGV[3] == '1' then
  redis.call('DEL', idem)
  redis.call('HSET', idem, 'fingerprint', ARGV[14], 'created_at', ARGV[9], 'outcome', outcome,
    'version', version, 'etag', etag, 'result', ARGV[15])
  redis.call('PEXPIRE', idem, ARGV[5])
end
return {'ok', outcome, version, etag}
`;

/**
 * Delete an inclusive range. KEYS: state, tombstones. ARGV: 1 from, 2 to,
 * 3 acceptable ETags (newline separated), 4 deleted_at, 5 revision key prefix.
 *
 * Returns `{'missing'}`, `{'refused', published, etag}` (stale ETag, protected or
 * unknown versions: nothing written) or `{'ok', deleted[], already_deleted[], etag}`.
 */
export const DELETE_LUA = `
local cur = redis.call('HMGET', KEYS[1], 'published', 'etag')
local published = tonumber(cur[1])
if not published then return {'missing'} end
local matched = false
for tag in string.gmatch(ARGV[3], '[^\\n]+') do
  if tag == cur[2] then matched = true break end
end
local from, to = tonumber(ARGV[1]), tonumber(ARGV[2])
local protectedFrom = math.max(1, published - 1)
if (not matched) or (to >= protectedFrom and from <= published) or to > published then
  return {'refused', published, cur[2]}
end
local deleted, already = {}, {}
for v = from, to do
  if redis.call('HSETNX', KEYS[2], v, ARGV[4]) == 1 then
    redis.call('DEL', ARGV[5] .. v)
    deleted[#deleted + 1] = v
  else
    already[#already + 1] = v
  end
end
return {'ok', deleted, already, cur[2]}
`;

/**
 * Read one revision with the skill's state in one consistent step. KEYS: state,
 * tombstones. ARGV: 1 revision key prefix, 2 `published` or a version number,
 * 3.. the fields to read (all fields when none are named).
 *
 * Returns `{'missing'}`, `{'gone', published, etag, last, deleted_at or nil}` or
 * `{'ok', published, etag, version, field/value pairs[]}`.
 */
export const READ_REVISION_LUA = `
local cur = redis.call('HMGET', KEYS[1], 'published', 'etag', 'last')
if not cur[1] then return {'missing'} end
local v = ARGV[2]
if v == 'published' then v = cur[1] end
local key = ARGV[1] .. v
if redis.call('EXISTS', key) == 0 then
  return {'gone', cur[1], cur[2], cur[3], redis.call('HGET', KEYS[2], v)}
end
local out = {}
if #ARGV > 2 then
  local names = {}
  for i = 3, #ARGV do names[#names + 1] = ARGV[i] end
  local values = redis.call('HMGET', key, unpack(names))
  for i = 1, #names do
    if values[i] then
      out[#out + 1] = names[i]
      out[#out + 1] = values[i]
    end
  end
else
  out = redis.call('HGETALL', key)
end
return {'ok', cur[1], cur[2], v, out}
`;

/**
 * One page of history, newest first. KEYS: state, history, tombstones. ARGV:
 * 1 upper score bound (`+inf` or `(<before>`), 2 entries to read.
 *
 * Returns `{'missing'}` or `{'ok', published, entries-with-scores[], deleted_at-or-nil[]}`.
 */
export const HISTORY_LUA = `
local published = redis.call('HGET', KEYS[1], 'published')
if not published then return {'missing'} end
local rows = redis.call('ZREVRANGEBYSCORE', KEYS[2], ARGV[1], '-inf', 'WITHSCORES', 'LIMIT', 0, tonumber(ARGV[2]))
local tombs = {}
for i = 2, #rows, 2 do tombs[#tombs + 1] = redis.call('HGET', KEYS[3], rows[i]) end
return {'ok', published, rows, tombs}
`;

/**
 * After a successful audit, mark the stored idempotent reply as audited, unless the
 * record expired or was replaced. KEYS: record. ARGV: 1 fingerprint, 2 result JSON.
 */
export const IDEMPOTENCY_AUDITED_LUA = `
if redis.call('HGET', KEYS[1], 'fingerprint') == ARGV[1] then
  redis.call('HSET', KEYS[1], 'result', ARGV[2])
  return 1
end
return 0
`;
