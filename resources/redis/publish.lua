-- SPDX-License-Identifier: GPL-3.0-or-later
-- KEYS: meta   ARGV: prefix, queue, now, then per message: due (0: now), message
-- All or nothing: max_size is checked for the whole batch before anything is added.
local q = open(ARGV[1], ARGV[2])
if not q then return notFound() end
local now = tonumber(ARGV[3])
local n = (#ARGV - 3) / 2
local held
if q.type == 'stream' then held = redis.call('XLEN', q.stream) else held = size(q) end
if held + n > q.maxSize then return redis.error_reply('QUEUE_FULL queue is full') end
local ready = {}
for i = 4, #ARGV, 2 do
  local due = ARGV[i] ~= '0' and tonumber(ARGV[i]) or 0 -- most are due now: no number to read
  if due > now then
    redis.call('ZADD', q.delayed, due, ARGV[i + 1])
  elseif q.type == 'list' then
    ready[#ready + 1] = ARGV[i + 1]
  else
    pushReady(q, ARGV[i + 1])
  end
end
if #ready > 0 then
  wake(q)
  redis.call('LPUSH', q.ready, unpack(ready)) -- one command for the batch, in order
end
count(q, 'published', n)
return answer(held + n)
