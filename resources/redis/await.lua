-- SPDX-License-Identifier: GPL-3.0-or-later
-- A consumer of a broker waits on the queue for ARGV[4] ms more: the meta hash's `waiting` moves to
-- that end, by Redis's clock (serverMs: brokers' clocks need not agree), unless another wait already
-- reaches further (a shorter wait must not end a longer one's wake-ups). A queue that does not exist
-- gets no meta hash.
-- KEYS: meta   ARGV: prefix, queue, now, ms. Replies 1 when it moved `waiting`, 0 when not.
local meta = KEYS[1]
local current = redis.call('HGET', meta, 'waiting')
if not current and redis.call('EXISTS', meta) == 0 then return notFound() end
local ends = serverMs() + ARGV[4]
if current and current + 0 >= ends then return answer(0) end
redis.call('HSET', meta, 'waiting', ends)
return answer(1)
