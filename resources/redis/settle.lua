-- SPDX-License-Identifier: GPL-3.0-or-later
-- Ack, nack or extend one leased message of a list or priority queue.
-- KEYS: meta
-- ARGV: prefix, queue, now, action (ack|nack|extend), id, receipt ('' = whatever lease is current), ms (nack: delay; extend: visibility)
-- Replies ack: 1; nack: {requeued, dead_lettered}; extend: the new deadline.
local q = open(ARGV[1], ARGV[2])
if not q then return notFound() end
if q.type == 'stream' then return redis.error_reply('WRONG_KIND a stream queue now') end
local now = tonumber(ARGV[3])
local action, id, receipt, ms = ARGV[4], ARGV[5], ARGV[6], tonumber(ARGV[7])
local lease = redis.call('HGET', q.leases, id)
if not lease then return redis.error_reply('MESSAGE_NOT_FOUND no such lease') end
if receipt ~= '' and string.sub(lease, 1, 16) ~= receipt then return redis.error_reply('STALE_RECEIPT the lease has a newer receipt') end

if action == 'extend' then
  local deadline = now + ms
  redis.call('ZADD', q.deadlines, deadline, id)
  return answer(deadline)
end

local message = string.sub(lease, 17)
redis.call('HDEL', q.leases, id)
redis.call('ZREM', q.deadlines, id)
if action == 'ack' then
  event('Acked', q.name, id, tonumber(redis.call('HGET', q.deliveries, id) or '0'), '')
  redis.call('HDEL', q.deliveries, id)
  count(q, 'acked')
  return answer(1)
end

count(q, 'nacked')
local deliveries = tonumber(redis.call('HGET', q.deliveries, id) or '0')
event('Nacked', q.name, id, deliveries, '')
if deliveries >= q.maxDeliveries then
  local moved = deadLetter(q, message, 'max_deliveries', now)
  return answer({0, moved and 1 or 0})
end
if ms > 0 then
  redis.call('ZADD', q.delayed, now + ms, message)
else
  requeueReady(q, message)
end
return answer({1, 0})
