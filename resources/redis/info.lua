-- SPDX-License-Identifier: GPL-3.0-or-later
-- KEYS: meta   ARGV: prefix, queue
-- Replies {meta as field/value pairs, ready, delayed, in flight, groups}; groups (stream queues)
-- as {name, pending, lag, consumers...} entries.
local q = open(ARGV[1], ARGV[2])
if not q then return notFound() end
local meta = redis.call('HGETALL', q.meta)
if q.type ~= 'stream' then
  return answer({meta, readyCount(q), redis.call('ZCARD', q.delayed), redis.call('HLEN', q.leases), {}})
end
local groups = {}
local depth = 0
local inflight = 0
if redis.call('EXISTS', q.stream) == 0 then return answer({meta, 0, 0, 0, {}}) end

-- Entries after `last` that the group has not been given. Redis 7.0's own "lag" miscounts once
-- entries were trimmed, so count them here: exactly up to a bound, then from the other side,
-- and past both bounds the stream's length stands in for it.
local function streamLag(q, last)
  local bound = 1000
  local total = redis.call('XLEN', q.stream)
  local after = #redis.call('XRANGE', q.stream, '(' .. last, '+', 'COUNT', bound + 1)
  if after <= bound then return after end
  local upTo = #redis.call('XRANGE', q.stream, '-', last, 'COUNT', bound + 1)
  if upTo <= bound then return total - upTo end
  return total
end
for _, g in ipairs(redis.call('XINFO', 'GROUPS', q.stream)) do
  local info = {}
  for i = 1, #g, 2 do info[g[i]] = g[i + 1] end
  local leased = redis.call('HLEN', q.groupPrefix .. info['name'])
  local lag = streamLag(q, info['last-delivered-id'])
  local consumers = {}
  for _, c in ipairs(redis.call('XINFO', 'CONSUMERS', q.stream, info['name'])) do
    for i = 1, #c, 2 do if c[i] == 'name' then consumers[#consumers + 1] = c[i + 1] end end
  end
  groups[#groups + 1] = {info['name'], info['pending'], lag, consumers}
  local claimable = info['pending'] - leased
  depth = math.max(depth, lag + claimable)
  inflight = inflight + leased
end
if #groups == 0 then depth = redis.call('XLEN', q.stream) end
return answer({meta, depth, 0, inflight, groups})
