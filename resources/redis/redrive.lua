-- SPDX-License-Identifier: GPL-3.0-or-later
-- KEYS: meta
-- ARGV: prefix, queue, now, origin (cluster: asked of a dead-letter queue in another slot than its
--       origin's, for that origin's messages; else empty), the queues that exist, one per line
--       (cluster: the registry's; else empty), limit (<= 0: all), n, n ids (only these;
--       n = 0: any), then pairs of id and the edited payload as the stored message holds it (a JSON
--       string, quotes included)
-- Asked of a queue with a dead-letter queue: brings back what it sent there. Asked of any other
-- queue: sends each dead-lettered message in it back where it came from. Messages whose origin
-- queue is gone stay where they are (on a cluster, an origin in another slot takes them by a
-- transfer, and one that is gone gives them back). An edited message goes back with its new payload.
-- Replies {moved, {{id, origin, message as it was}...}}.
local q = open(ARGV[1], ARGV[2])
if not q then return notFound() end
local now = tonumber(ARGV[3])
local present = {}
for name in string.gmatch(ARGV[5], '[^\n]+') do present[name] = true end
local limit = tonumber(ARGV[6])
local n = tonumber(ARGV[7] or '0')
local only, edits = nil, {}
if n > 0 then
  only = {}
  for i = 8, 7 + n do only[ARGV[i]] = true end
end
for i = 8 + n, #ARGV - 1, 2 do edits[ARGV[i]] = ARGV[i + 1] end

local source, origin = q, ARGV[4]
if origin == '' and q.dlq ~= '' then
  source = open(ARGV[1], q.dlq)
  origin = q.name
  if not source then return answer({0, {}}) end
end
if source.type == 'stream' then return answer({0, {}}) end

local function withPayload(message, payload)
  local at = payloadStart(message)
  if not at then return message end
  return string.sub(message, 1, at - 1) .. ',"d":' .. payload .. '}'
end

local moved, items = 0, {}
for _, key in ipairs(readyLists(source)) do
  local messages = redis.call('LRANGE', key, 0, -1)
  for i = #messages, 1, -1 do -- front of the line first
    if limit > 0 and moved >= limit then break end
    local message = messages[i]
    local id, _, rest = parse(message)
    local from = string.match(rest, '^"dl":{"q":"([^"]+)"')
    if from and (origin == '' or from == origin) and (not only or only[id]) then
      local near = reachable(source.name, from)
      local target = near and open(ARGV[1], from)
      if target or (not near and present[from]) then
        redis.call('LREM', key, 1, message)
        redis.call('HDEL', source.deliveries, id)
        shift(source, -1)
        local back = string.format('{"id":"%s","ts":%d,%s', id, now, withoutDeadLetter(rest))
        if edits[id] then back = withPayload(back, edits[id]) end
        if target then
          redis.call('HDEL', target.deliveries, id)
          pushReady(target, back)
          shift(target, 1)
          count(target, 'redriven')
        else
          sendAway(source, 'redrive', from, back, message, now)
        end
        event('Redriven', from, id, 0, source.name)
        moved = moved + 1
        items[#items + 1] = {id, from, message}
      end
    end
  end
  if source.type == 'priority' and redis.call('LLEN', key) == 0 then
    redis.call('ZREM', source.prios, string.match(key, ':(-?%d+)$'))
  end
end
return answer({moved, items})
