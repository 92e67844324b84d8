-- SPDX-License-Identifier: GPL-3.0-or-later
-- KEYS: meta
-- ARGV: prefix, queue, now, count, acknowledge (1/0), lease ms (0: the queue's), receipts (one per message wanted when leasing)
-- Replies {{message, deliveries, receipt, deadline}...}: receipt '' and deadline 0 when acknowledged.
local q = open(ARGV[1], ARGV[2], TAKING)
if not q then return notFound() end
if q.type == 'stream' then return redis.error_reply('WRONG_KIND a stream queue now') end
local now = tonumber(ARGV[3])
local want = tonumber(ARGV[4])
local acknowledge = ARGV[5] == '1'
local leaseMs
if not acknowledge then
  leaseMs = tonumber(ARGV[6])
  if leaseMs <= 0 then leaseMs = q.visibilityMs end
end
local out = {}
local nextReceipt = 7
while #out < want do
  local message = popReady(q)
  if not message then break end
  if isExpired(q, message, now) then
    expire(q, message, now)
  else
    local id = idOf(message)
    local deliveries
    if acknowledge then
      -- Taken for good: its delivery count is read, and removed only when there was one.
      deliveries = (tonumber(redis.call('HGET', q.deliveries, id)) or 0) + 1
      if deliveries > 1 then redis.call('HDEL', q.deliveries, id) end
      out[#out + 1] = {message, deliveries, '', 0}
    else
      deliveries = redis.call('HINCRBY', q.deliveries, id, '1')
      local receipt = ARGV[nextReceipt]
      nextReceipt = nextReceipt + 1
      local deadline = now + leaseMs
      redis.call('HSET', q.leases, id, receipt .. message)
      redis.call('ZADD', q.deadlines, deadline, id)
      out[#out + 1] = {message, deliveries, receipt, deadline}
    end
  end
end
if #out > 0 then
  count(q, 'delivered', #out)
  if acknowledge then count(q, 'acked', #out) end
end
return answer(out)
