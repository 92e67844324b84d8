-- SPDX-License-Identifier: GPL-3.0-or-later
-- The reaper of a stream queue; safe to run on every broker at once (it is atomic).
-- KEYS: meta   ARGV: prefix, queue, now, limit
-- Replies {next due time (0: none; now: more to do), 1 when entries became claimable, transfers
-- waiting in the outbox (cluster)}.
local q = open(ARGV[1], ARGV[2])
if not q or q.type ~= 'stream' then return answer({0, 0}) end
local now = tonumber(ARGV[3])
local limit = tonumber(ARGV[4])
local available, more, nextDue = 0, false, 0

for _, group in ipairs(groupNames(q)) do
  local leases, deadlines = q.groupPrefix .. group, q.deadlinePrefix .. group
  local expired = redis.call('ZRANGEBYSCORE', deadlines, '-inf', now, 'LIMIT', 0, limit)
  more = more or #expired == limit
  for _, entry in ipairs(expired) do
    redis.call('ZREM', deadlines, entry)
    redis.call('HDEL', leases, entry)
    local deliveries = pendingDeliveries(q, group, entry)
    local message = entryMessage(q, entry)
    if deliveries and message then
      event('LeaseExpired', q.name, idOf(message), deliveries, group)
      if deliveries >= q.maxDeliveries then
        forgetPending(q, group, entry)
        deadLetter(q, message, 'max_deliveries', now, deliveries)
      else
        available = 1
        wake(q)
      end
    elseif deliveries then
      forgetPending(q, group, entry)
    end
  end
  local first = redis.call('ZRANGE', deadlines, 0, 0, 'WITHSCORES')
  if #first > 0 and (nextDue == 0 or tonumber(first[2]) < nextDue) then nextDue = tonumber(first[2]) end
end

-- The stream is in publish order, so expired entries are at its front.
local front = redis.call('XRANGE', q.stream, '-', '+', 'COUNT', limit)
for _, e in ipairs(front) do
  if not isExpired(q, e[2][2], now) then break end
  removeEntry(q, e[1], e[2][2])
  expire(q, e[2][2], now)
end
trimStream(q, limit)
-- Entries another broker published wake this broker's waiting consumers too (within a run).
if available == 0 and redis.call('XLEN', q.stream) > 0 then available = 1 end
if more then nextDue = now end
-- On a cluster, transfers waiting in the outbox (see lib.lua) are the broker's to hand over.
local waiting = REGISTRY and 0 or redis.call('LLEN', q.outbox)
return answer({nextDue, available, waiting})
