-- SPDX-License-Identifier: GPL-3.0-or-later
-- KEYS: meta
-- ARGV: prefix, queue, now, state (ready|delayed|in_flight|dead), offset, limit, scan, id, text,
--       origin (cluster: state dead asked of a dead-letter queue in another slot than its origin's,
--       for that origin's messages; else empty)
-- Two ways to read one state, in its order (ready: delivery order; delayed: due time; in flight:
-- lease end), touching nothing:
--   scan = 0: a page, messages offset+1 .. offset+limit;
--   scan > 0: the candidates among the first `scan` messages: those whose id is `id` (when given)
--             and whose payload contains `text` (JSON-escaped as stored; when given). The broker
--             checks candidates exactly and pages them (an escaped text can match a little more).
-- State dead reads the dead-letter queue for messages from this queue (a queue without one: its own
-- dead-lettered messages) and is always a scan.
-- Replies {messages in the state, messages examined, {{message, deliveries, time, group}...}}, where
-- time is the due time (delayed) or lease end (in flight), else 0.
local q = open(ARGV[1], ARGV[2])
if not q then return notFound() end
local state, offset, limit, scan = ARGV[4], tonumber(ARGV[5]), tonumber(ARGV[6]), tonumber(ARGV[7])
local wantId, text = ARGV[8], ARGV[9]
local origin = nil

if state == 'dead' then
  if (ARGV[10] or '') ~= '' then
    origin = ARGV[10]
  elseif q.dlq ~= '' then
    origin = q.name
    q = open(ARGV[1], q.dlq)
    if not q then return answer({0, 0, {}}) end
  else
    origin = ''
  end
  state = 'ready'
  if scan == 0 then scan = offset + limit end
end

local function payloadOf(message)
  local at = payloadStart(message)
  return at and string.sub(message, at + 6) or message
end

local function candidate(message)
  local id, _, rest = parse(message)
  if wantId ~= '' and id ~= wantId then return false end
  if origin then
    local from = string.match(rest, '^"dl":{"q":"([^"]+)"')
    if not from or (origin ~= '' and from ~= origin) then return false end
  end
  if text ~= '' and not string.find(payloadOf(message), text, 1, true) then return false end
  return true
end

local out, total, examined = {}, 0, 0
-- Offers one message in order; false once the walk is over.
local function offer(message, deliveries, time, group)
  examined = examined + 1
  if scan > 0 then
    if candidate(message) then out[#out + 1] = {message, deliveries, time, group} end
    return examined < scan
  end
  if examined > offset then out[#out + 1] = {message, deliveries, time, group} end
  return #out < limit
end
local function deliveriesOf(id) return tonumber(redis.call('HGET', q.deliveries, id) or '0') end
local wanted = scan > 0 and scan or offset + limit

if state == 'ready' and q.type == 'stream' then
  total = redis.call('XLEN', q.stream)
  for _, e in ipairs(redis.call('XRANGE', q.stream, '-', '+', 'COUNT', wanted)) do
    if not offer(e[2][2], 0, 0, '') then break end
  end
elseif state == 'ready' then
  local lists = readyLists(q)
  for _, key in ipairs(lists) do total = total + redis.call('LLEN', key) end
  local skip = scan > 0 and 0 or offset -- a page skips whole lists without reading them
  examined = scan > 0 and 0 or offset
  for _, key in ipairs(lists) do
    local n = redis.call('LLEN', key)
    local want = wanted - examined
    if want <= 0 then break end
    if skip >= n then
      skip = skip - n
    else
      -- The front of the line is the list's right end.
      local part = redis.call('LRANGE', key, -math.min(n, skip + want), -(skip + 1))
      skip = 0
      local done = false
      for i = #part, 1, -1 do
        if not offer(part[i], deliveriesOf(idOf(part[i])), 0, '') then done = true break end
      end
      if done then break end
    end
  end
elseif state == 'delayed' and q.type ~= 'stream' then
  total = redis.call('ZCARD', q.delayed)
  local items = redis.call('ZRANGE', q.delayed, 0, wanted - 1, 'WITHSCORES')
  for i = 1, #items, 2 do
    if not offer(items[i], deliveriesOf(idOf(items[i])), tonumber(items[i + 1]), '') then break end
  end
elseif state == 'in_flight' and q.type == 'stream' then
  local groups = groupNames(q)
  for _, group in ipairs(groups) do total = total + redis.call('ZCARD', q.deadlinePrefix .. group) end
  local done = false
  for _, group in ipairs(groups) do
    if done or wanted - examined <= 0 then break end
    local items = redis.call('ZRANGE', q.deadlinePrefix .. group, 0, wanted - examined - 1, 'WITHSCORES')
    for i = 1, #items, 2 do
      local message = entryMessage(q, items[i])
      if message then
        local deliveries = pendingDeliveries(q, group, items[i]) or 0
        if not offer(message, deliveries, tonumber(items[i + 1]), group) then done = true break end
      end
    end
  end
elseif state == 'in_flight' then
  total = redis.call('HLEN', q.leases)
  local items = redis.call('ZRANGE', q.deadlines, 0, wanted - 1, 'WITHSCORES')
  for i = 1, #items, 2 do
    local lease = redis.call('HGET', q.leases, items[i])
    if lease then
      if not offer(string.sub(lease, 17), deliveriesOf(items[i]), tonumber(items[i + 1]), '') then break end
    end
  end
end
return answer({total, examined, out})
