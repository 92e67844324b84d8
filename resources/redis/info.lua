-- KEYS: meta   ARGV: prefix, queue
-- Replies {meta as field/value pairs, ready, delayed, in flight, groups}; groups (stream queues)
-- as {name, pending, lag, consumers...} entries.
local q = open(ARGV[1], ARGV[2])
if not q then return notFound() end
local meta = redis.call('HGETALL', q.meta)
if q.type ~= 'stream' then
  return {{meta, readyCount(q), redis.call('ZCARD', q.delayed), redis.call('HLEN', q.leases), {}}, EVENTS}
end
local groups = {}
local depth = 0
local inflight = 0
for _, g in ipairs(redis.call('XINFO', 'GROUPS', q.stream)) do
  local info = {}
  for i = 1, #g, 2 do info[g[i]] = g[i + 1] end
  local leased = redis.call('HLEN', q.groupPrefix .. info['name'])
  local lag = tonumber(info['lag']) or 0
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
return {{meta, depth, 0, inflight, groups}, EVENTS}
