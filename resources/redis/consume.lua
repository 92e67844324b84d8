-- SPDX-License-Identifier: GPL-3.0-or-later
-- KEYS: meta
-- ARGV: prefix, queue, now, count, acknowledge (1/0), lease ms (0: the queue's), receipts (one per message wanted when leasing)
-- Replies {message, deliveries, receipt, deadline, ...}, four per message, flat (each table of a reply
-- costs Redis about 2.7 k instructions to turn into RESP): receipt '' and deadline 0 when acknowledged.
local q = open(ARGV[1], ARGV[2], TAKING)
if not q then return notFound() end
if q.type == 'stream' then return redis.error_reply('WRONG_KIND a stream queue now') end
local now = ARGV[3] + 0
local want = ARGV[4] * 4 -- out's length
local acknowledge = ARGV[5] == '1'
local leaseMs
if not acknowledge then
  leaseMs = ARGV[6] + 0
  if leaseMs <= 0 then leaseMs = q.visibilityMs end
end
local out = {}
local nextReceipt = 7
while #out < want do
  local message = popReady(q)
  if not message then break end
  local id, ts = stampOf(message)
  if ts + q.ttlMs <= now then
    expire(q, message, now)
  else
    local deliveries
    if acknowledge then
      -- Taken for good: its delivery count is read, and removed only when there was one.
      deliveries = (redis.call('HGET', q.deliveries, id) or 0) + 1
      if deliveries > 1 then redis.call('HDEL', q.deliveries, id) end
      local n = #out
      out[n + 1], out[n + 2], out[n + 3], out[n + 4] = message, deliveries, '', 0
    else
      deliveries = redis.call('HINCRBY', q.deliveries, id, '1')
      local receipt = ARGV[nextReceipt]
      nextReceipt = nextReceipt + 1
      local deadline = now + leaseMs
      redis.call('HSET', q.leases, id, receipt .. message)
      redis.call('ZADD', q.deadlines, deadline, id)
      local n = #out
      out[n + 1], out[n + 2], out[n + 3], out[n + 4] = message, deliveries, receipt, deadline
    end
  end
end
local taken = #out / 4
if taken > 0 then
  if acknowledge then -- both counters by one command (each costs Redis about 6 k instructions)
    redis.call('HSET', q.meta, 'delivered', q.delivered + taken, 'acked', q.acked + taken)
  else
    count(q, 'delivered', taken)
  end
end
return answer(out)
