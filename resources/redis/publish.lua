-- SPDX-License-Identifier: GPL-3.0-or-later
-- KEYS: meta   ARGV: prefix, queue, now, then per message: due (0: now), message
-- All or nothing: max_size is checked for the whole batch before anything is added.
local q = open(ARGV[1], ARGV[2], COUNTING)
if not q then return notFound() end
local n = (#ARGV - 3) / 2
local held = heldCount(q)
if held + n > q.maxSize then return redis.error_reply('QUEUE_FULL queue is full') end
if n == 1 and ARGV[4] == '0' and q.type == 'list' then -- the commonest publish, without the batch's table
  wake(q)
  redis.call('LPUSH', q.ready, ARGV[5])
  count(q, 'published')
  return answer(held + 1)
end
local now -- read with the first due time: most messages are due now ('0'), and each number is an strtod
local ready = {}
for i = 4, #ARGV, 2 do
  local due = 0
  if ARGV[i] ~= '0' then
    due = tonumber(ARGV[i])
    now = now or tonumber(ARGV[3])
  end
  if due > 0 and due > now then
    redis.call('ZADD', q.delayed, ARGV[i], ARGV[i + 1]) -- the score as the broker wrote it
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
