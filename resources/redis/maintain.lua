-- SPDX-License-Identifier: GPL-3.0-or-later
-- The reaper of a list or priority queue; safe to run on every broker at once (it is atomic).
-- KEYS: meta
-- ARGV: prefix, queue, now, limit (messages handled per step and kind), check the held count (1/0)
-- Replies {next due time (0: none; now: more to do), 1 when messages became deliverable, transfers
-- waiting in the outbox (cluster), 1 when the queue's held count was wrong and was mended (lib.lua)}.
local q = open(ARGV[1], ARGV[2])
if not q or q.type == 'stream' then return answer({0, 0}) end
local now = tonumber(ARGV[3])
local limit = tonumber(ARGV[4])
local available = 0
local more = false

local expiredLeases = redis.call('ZRANGEBYSCORE', q.deadlines, '-inf', now, 'LIMIT', 0, limit)
more = more or #expiredLeases == limit
for _, id in ipairs(expiredLeases) do
  local lease = redis.call('HGET', q.leases, id)
  redis.call('ZREM', q.deadlines, id)
  redis.call('HDEL', q.leases, id)
  if lease then
    local message = string.sub(lease, 17)
    local deliveries = tonumber(redis.call('HGET', q.deliveries, id) or '0')
    event('LeaseExpired', q.name, id, deliveries, '')
    if deliveries >= q.maxDeliveries then
      deadLetter(q, message, 'max_deliveries', now)
    else
      requeueReady(q, message)
      available = 1
    end
  end
end

local due = redis.call('ZRANGEBYSCORE', q.delayed, '-inf', now, 'LIMIT', 0, limit)
more = more or #due == limit
for _, message in ipairs(due) do
  redis.call('ZREM', q.delayed, message)
  pushReady(q, message)
  available = 1
end

-- Messages wait in publish order, so expired ones are at the front of each list.
local swept = 0
for _, key in ipairs(readyLists(q)) do
  while swept < limit do
    local message = redis.call('LINDEX', key, -1)
    if not message or not isExpired(q, message, now) then break end
    redis.call('RPOP', key)
    expire(q, message, now)
    swept = swept + 1
  end
  if q.type == 'priority' and redis.call('LLEN', key) == 0 then
    redis.call('ZREM', q.prios, string.match(key, ':(-?%d+)$'))
  end
end
more = more or swept == limit

-- Messages another broker published wake this broker's waiting consumers too (within a run).
local ready = readyCount(q)
if ready > 0 then available = 1 end
local mended = ARGV[5] == '1' and mendHeld(q, ready) or 0

local nextDue = 0
local first = redis.call('ZRANGE', q.deadlines, 0, 0, 'WITHSCORES')
if #first > 0 then nextDue = tonumber(first[2]) end
first = redis.call('ZRANGE', q.delayed, 0, 0, 'WITHSCORES')
if #first > 0 and (nextDue == 0 or tonumber(first[2]) < nextDue) then nextDue = tonumber(first[2]) end
if more then nextDue = now end
-- On a cluster, transfers waiting in the outbox (see lib.lua) are the broker's to hand over.
local waiting = REGISTRY and 0 or redis.call('LLEN', q.outbox)
return answer({nextDue, available, waiting, mended})
