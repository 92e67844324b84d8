-- SPDX-License-Identifier: GPL-3.0-or-later
-- KEYS: meta   ARGV: prefix, queue, now, offset, limit
-- Replies {total ready, {message, deliveries}...} in delivery order.
local q = open(ARGV[1], ARGV[2])
if not q then return notFound() end
local offset = tonumber(ARGV[4])
local limit = tonumber(ARGV[5])
local out = {}
if q.type == 'stream' then
  local total = redis.call('XLEN', q.stream)
  local entries = redis.call('XRANGE', q.stream, '-', '+', 'COUNT', offset + limit)
  for i = offset + 1, #entries do out[#out + 1] = {entries[i][2][2], 0} end
  return {{total, out}, EVENTS}
end
local total = 0
local skip = offset
for _, key in ipairs(readyLists(q)) do
  local n = redis.call('LLEN', key)
  total = total + n
  if #out < limit and skip < n then
    -- The front of the line is the list's right end.
    local from = -(skip + 1)
    local to = -math.min(n, skip + limit - #out)
    local part = redis.call('LRANGE', key, to, from)
    for i = #part, 1, -1 do
      local id = parse(part[i])
      out[#out + 1] = {part[i], tonumber(redis.call('HGET', q.deliveries, id) or '0')}
    end
    skip = 0
  else
    skip = skip - math.min(skip, n)
  end
end
return {{total, out}, EVENTS}
