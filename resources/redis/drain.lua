-- SPDX-License-Identifier: GPL-3.0-or-later
-- Delivers one batch from a broker's publish spool (publishes it accepted while Redis was out of
-- reach). Idempotent: P{Q}:spooled remembers the highest batch number taken from each spool
-- identity, so a batch sent again after a lost reply is taken once. max_size is not enforced:
-- the publisher was told yes long ago, and refusing now would lose the messages.
-- KEYS: meta   ARGV: prefix, queue, now, spool identity, batch number, then per message: due, message
-- Replies 1 when taken, 0 when it had been taken before; QUEUE_NOT_FOUND when the queue is gone.
local q = open(ARGV[1], ARGV[2])
if not q then return notFound() end
local now = tonumber(ARGV[3])
local marks = ARGV[1] .. '{' .. ARGV[2] .. '}:spooled'
local number = tonumber(ARGV[5])
if number <= tonumber(redis.call('HGET', marks, ARGV[4]) or '0') then return {0, EVENTS} end
for i = 6, #ARGV, 2 do
  local due = tonumber(ARGV[i])
  if due > now then
    redis.call('ZADD', q.delayed, due, ARGV[i + 1])
  else
    pushReady(q, ARGV[i + 1])
  end
end
count(q, 'published', (#ARGV - 5) / 2)
redis.call('HSET', marks, ARGV[4], number)
return {1, EVENTS}
