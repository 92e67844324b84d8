-- SPDX-License-Identifier: GPL-3.0-or-later
-- Ack, nack or extend one pending entry of a stream queue, found by message id.
-- KEYS: meta   ARGV: prefix, queue, now, action (ack|nack|extend), message id, receipt ('' = any),
--               group ('' = the one group that holds it), ms (nack: delay; extend: visibility),
--               a fresh receipt (nack with a delay: the entry is held under it until the delay is over)
-- Replies ack: 1; nack: {requeued, dead_lettered}; extend: the new deadline.
local q = open(ARGV[1], ARGV[2])
if not q then return notFound() end
if q.type ~= 'stream' then return redis.error_reply('WRONG_KIND not a stream queue') end
local now = tonumber(ARGV[3])
local action, id, receipt, wanted, ms, fresh = ARGV[4], ARGV[5], ARGV[6], ARGV[7], tonumber(ARGV[8]), ARGV[9]
local entry = redis.call('HGET', q.ids, id)
if not entry then return redis.error_reply('MESSAGE_NOT_FOUND no such entry') end

local groups = wanted ~= '' and {wanted} or groupNames(q)
local found, deliveries, holders = nil, nil, 0
for _, group in ipairs(groups) do
  local d = pendingDeliveries(q, group, entry)
  if d then
    local current = redis.call('HGET', q.groupPrefix .. group, entry)
    if receipt ~= '' and current ~= receipt then
      if wanted ~= '' then return redis.error_reply('STALE_RECEIPT the lease has a newer receipt') end
    else
      found, deliveries, holders = group, d, holders + 1
    end
  end
end
if holders == 0 then
  if receipt ~= '' and wanted == '' then return redis.error_reply('STALE_RECEIPT the lease has a newer receipt') end
  return redis.error_reply('MESSAGE_NOT_FOUND not pending')
end
if holders > 1 then return redis.error_reply('AMBIGUOUS pending in several consumer groups') end
local leases, deadlines = q.groupPrefix .. found, q.deadlinePrefix .. found
local leased = redis.call('HEXISTS', leases, entry) == 1

if action == 'extend' then
  if not leased then return redis.error_reply('MESSAGE_NOT_FOUND claimable, no lease') end
  local deadline = now + ms
  redis.call('ZADD', deadlines, deadline, entry)
  return answer(deadline)
end

if action == 'ack' then
  event('Acked', q.name, id, deliveries, found)
  forgetPending(q, found, entry)
  count(q, 'acked')
  trimStream(q)
  return answer(1)
end

count(q, 'nacked')
event('Nacked', q.name, id, deliveries, found)
if deliveries >= q.maxDeliveries then
  -- The group gives up on it: a copy goes to the dead-letter queue, the stream keeps the entry.
  local message = entryMessage(q, entry)
  forgetPending(q, found, entry)
  local moved = message and deadLetter(q, message, 'max_deliveries', now, deliveries) or false
  trimStream(q)
  return answer({0, moved and 1 or 0})
end
if ms > 0 then
  redis.call('HSET', leases, entry, fresh)
  redis.call('ZADD', deadlines, now + ms, entry)
else
  redis.call('HDEL', leases, entry)
  redis.call('ZREM', deadlines, entry)
  wake(q) -- claimable now
end
return answer({1, 0})
