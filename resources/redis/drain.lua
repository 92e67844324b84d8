-- SPDX-License-Identifier: GPL-3.0-or-later
-- Delivers one batch from a broker's publish spool (publishes it accepted while Redis was out of
-- reach). Idempotent: P{Q}:spooled remembers the highest batch number taken from each spool
-- identity, so a batch sent again after a lost reply is taken once. max_size is not enforced
-- here: the publisher was told yes long ago (the broker judged max_size when it spooled them),
-- and refusing now would lose the messages.
-- A queue that is missing was either deleted on purpose (delete.lua leaves P{Q}:deleted for a
-- day) or lost with Redis's data (restarted empty, restored from an older snapshot). Deleted:
-- the messages go with their queue, as they would have had Redis taken them before the delete.
-- Lost: the queue is created again from the configuration the spool recorded with the batch.
-- KEYS: meta, registry (one server)   ARGV: prefix, queue, now, spool identity, batch number,
--   config known (1/0), type, max_size, ttl, visibility_timeout, max_deliveries, dead_letter_queue,
--   generation (cluster), partitions (of a partitioned queue's head), then per message: due, message
-- Replies 1 when taken, 0 when it had been taken before, 2 when taken into a queue created again,
-- 3 when the queue was deleted on purpose (nothing taken); QUEUE_NOT_FOUND when the queue is
-- missing and the batch carries no configuration to create it from; on a cluster NOT_ENROLLED
-- when it must be created and no generation was given (the broker enrolls it first, then asks again).
local prefix, name = ARGV[1], ARGV[2]
local first = 15
local q = open(prefix, name)
local status = 1
if not q then
  if redis.call('EXISTS', prefix .. '{' .. name .. '}:deleted') == 1 then return answer(3) end
  if ARGV[6] ~= '1' then return notFound() end
  if not REGISTRY and ARGV[13] == '' then return redis.error_reply('NOT_ENROLLED queue must be enrolled first') end
  createQueue(prefix, name, ARGV[7], ARGV[8], ARGV[9], ARGV[10], ARGV[11], ARGV[12], ARGV[3], ARGV[13])
  if ARGV[14] ~= '1' then redis.call('HSET', metaKey(prefix, name), 'partitions', ARGV[14]) end
  q = open(prefix, name)
  status = 2
end
local now = tonumber(ARGV[3])
local marks = prefix .. '{' .. name .. '}:spooled'
local number = tonumber(ARGV[5])
if number <= tonumber(redis.call('HGET', marks, ARGV[4]) or '0') then return answer(0) end
for i = first, #ARGV, 2 do
  local due = tonumber(ARGV[i])
  if due > now then
    redis.call('ZADD', q.delayed, due, ARGV[i + 1])
  else
    pushReady(q, ARGV[i + 1])
  end
end
count(q, 'published', (#ARGV - first + 1) / 2)
redis.call('HSET', marks, ARGV[4], number)
return answer(status)
