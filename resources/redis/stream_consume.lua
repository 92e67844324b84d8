-- SPDX-License-Identifier: GPL-3.0-or-later
-- Consume from a stream queue for one consumer of a group (created on first use, from the oldest
-- entry the stream holds). Claimable entries (lease ran out, nacked) come first, oldest first, then
-- new ones (XREADGROUP >). Within a group each entry is out to one consumer at a time.
-- KEYS: meta   ARGV: prefix, queue, now, count, acknowledge (1/0), lease ms (0: the queue's), group,
--               consumer, receipts (one per message wanted)
-- Replies {message, deliveries, receipt, deadline, ...}, four per message, flat as consume.lua's;
-- receipt '' and deadline 0 when acknowledged.
local q = open(ARGV[1], ARGV[2])
if not q then return notFound() end
if q.type ~= 'stream' then return redis.error_reply('WRONG_KIND not a stream queue') end
local now = tonumber(ARGV[3])
local want = tonumber(ARGV[4])
local acknowledge = ARGV[5] == '1'
local leaseMs = tonumber(ARGV[6])
if leaseMs <= 0 then leaseMs = q.visibilityMs end
local group, consumer = ARGV[7], ARGV[8]
local leases, deadlines = q.groupPrefix .. group, q.deadlinePrefix .. group
local nextReceipt = 9
local out = {}

if redis.call('HSETNX', q.groupPrefix .. 'names', group, 1) == 1 then
  redis.call('XGROUP', 'CREATE', q.stream, group, '0', 'MKSTREAM')
end

local function lease(entry, message, deliveries)
  local receipt = ARGV[nextReceipt]
  nextReceipt = nextReceipt + 1
  local deadline = now + leaseMs
  redis.call('HSET', leases, entry, receipt)
  redis.call('ZADD', deadlines, deadline, entry)
  local n = #out
  out[n + 1], out[n + 2], out[n + 3], out[n + 4] = message, deliveries, receipt, deadline
end

-- Claimable entries: pending in the group without a lease.
if redis.call('XLEN', q.stream) > 0 then
  local pending = redis.call('XPENDING', q.stream, group, '-', '+', 1000)
  for _, p in ipairs(pending) do
    if #out >= want * 4 then break end
    local entry = p[1]
    if redis.call('HEXISTS', leases, entry) == 0 then
      local claimed = redis.call('XCLAIM', q.stream, group, consumer, 0, entry)
      if #claimed == 0 or not claimed[1] then
        forgetPending(q, group, entry) -- the entry left the stream meanwhile
      else
        count(q, 'delivered')
        lease(entry, claimed[1][2][2], tonumber(p[4]) + 1)
      end
    end
  end
end

if #out < want * 4 then
  local read = redis.call('XREADGROUP', 'GROUP', group, consumer, 'COUNT', want - #out / 4, 'STREAMS', q.stream, '>')
  local entries = (read and read[1]) and read[1][2] or {}
  for _, e in ipairs(entries) do
    local entry, message = e[1], e[2][2]
    if isExpired(q, message, now) then
      redis.call('XACK', q.stream, group, entry) -- the TTL sweep counts it, once for all groups
    else
      count(q, 'delivered')
      if acknowledge then
        redis.call('XACK', q.stream, group, entry)
        count(q, 'acked')
        local n = #out
        out[n + 1], out[n + 2], out[n + 3], out[n + 4] = message, 1, '', 0
      else
        lease(entry, message, 1)
      end
    end
  end
end
trimStream(q)
return answer(out)
