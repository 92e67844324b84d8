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
local ready = {}
addMessages(q, 4, #ARGV, ready)
pushGathered(q, ready)
count(q, 'published', n)
return answer(held + n)
