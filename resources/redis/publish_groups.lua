-- SPDX-License-Identifier: GPL-3.0-or-later
-- KEYS: meta   ARGV: prefix, queue, now, then per publish: its message count n and n pairs of
-- due (0: now) and message.
-- Publishes to one queue that waited together in the broker while an earlier call was on its way
-- (RedisOperations::publish): each is all or nothing against max_size, as in publish.lua, taken in
-- the order given. Answers, per publish, the queue's held count after it, or -1 when it did not fit.
local q = open(ARGV[1], ARGV[2], COUNTING)
if not q then return notFound() end
local held = heldCount(q)
local answers, ready, added = {}, {}, 0
local at = 4
while at <= #ARGV do
  local n = ARGV[at] + 0
  if held + n > q.maxSize then
    answers[#answers + 1] = -1
  else
    addMessages(q, at + 1, at + 2 * n, ready)
    held = held + n
    added = added + n
    answers[#answers + 1] = held
  end
  at = at + 1 + 2 * n
end
pushGathered(q, ready)
if added > 0 then count(q, 'published', added) end
return answer(answers)
