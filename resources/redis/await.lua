-- SPDX-License-Identifier: GPL-3.0-or-later
-- A consumer of this broker waits on the queue until ARGV[4] (ms, the broker's clock): the meta
-- hash's `waiting` moves there, unless another broker's wait already reaches further (a shorter
-- wait must not end a longer one's wake-ups). A queue that does not exist gets no meta hash.
-- KEYS: meta   ARGV: prefix, queue, now, until. Replies 1 when it moved `waiting`, 0 when not.
local meta = KEYS[1]
local current = redis.call('HGET', meta, 'waiting')
if not current then
  if redis.call('EXISTS', meta) == 0 then return notFound() end
elseif current + 0 >= ARGV[4] + 0 then
  return answer(0)
end
redis.call('HSET', meta, 'waiting', ARGV[4])
return answer(1)
