-- SPDX-License-Identifier: GPL-3.0-or-later
-- An operator's action on chosen messages of a queue, wherever they stand (ready, delayed, leased).
-- KEYS: meta
-- ARGV: prefix, queue, now, action (delete|requeue|move|dead_letter), target (move), ids...
-- On a cluster a move target in another slot is checked by the broker before (it exists, it has
-- room) and takes the messages by a transfer (see lib.lua).
-- Replies {affected, {ids acted on...}}. Refuses: TARGET_NOT_FOUND, QUEUE_FULL (move: the ids asked
-- for would not all fit in the target; nothing moves), NO_DLQ (dead_letter without a dead-letter queue).
local q = open(ARGV[1], ARGV[2])
if not q then return notFound() end
local now, action = tonumber(ARGV[3]), ARGV[4]
-- The ids once each, in the order asked: leased messages are settled in that order.
local wanted, asked, order = {}, 0, {}
for i = 6, #ARGV do
  if not wanted[ARGV[i]] then
    asked = asked + 1
    order[asked] = ARGV[i]
  end
  wanted[ARGV[i]] = true
end

local target = nil
if action == 'move' and not reachable(q.name, ARGV[5]) then
  target = {name = ARGV[5], far = true}
elseif action == 'move' then
  target = open(ARGV[1], ARGV[5], COUNTING)
  if not target then return redis.error_reply('TARGET_NOT_FOUND target queue not found') end
  if heldCount(target) + asked > target.maxSize then return redis.error_reply('QUEUE_FULL queue size limit reached') end
elseif action == 'dead_letter' and q.dlq == '' then
  return redis.error_reply('NO_DLQ queue has no dead-letter queue')
end

local done = {}
-- What happens to one message taken out of the queue (delete, move, dead_letter).
local function settleTaken(id, message, deliveries)
  done[#done + 1] = id
  if action == 'delete' then
    redis.call('HDEL', q.deliveries, id)
    shift(q, -1)
    event('Deleted', q.name, id, deliveries, '')
  elseif action == 'move' then
    redis.call('HDEL', q.deliveries, id)
    shift(q, -1)
    local _, _, rest = parse(message)
    event('Moved', q.name, id, deliveries, target.name)
    local moved = string.format('{"id":"%s","ts":%d,%s', id, now, withoutDeadLetter(rest))
    if target.far then
      sendAway(q, 'move', target.name, moved, message, now)
    else
      redis.call('HDEL', target.deliveries, id)
      pushReady(target, moved)
      shift(target, 1)
    end
  else
    deadLetter(q, message, 'manual', now, q.type == 'stream' and deliveries or nil)
  end
end

if q.type == 'stream' then
  for _, id in ipairs(order) do
    local entry = redis.call('HGET', q.ids, id)
    local message = entry and entryMessage(q, entry)
    if message then
      if action == 'requeue' then
        done[#done + 1] = id
        -- The entry stays; in each group that holds it on a lease, the lease ends (claimable now).
        for _, group in ipairs(groupNames(q)) do
          if redis.call('HDEL', q.groupPrefix .. group, entry) == 1 then
            redis.call('ZREM', q.deadlinePrefix .. group, entry)
            event('Requeued', q.name, id, pendingDeliveries(q, group, entry) or 0, group)
          end
        end
      else
        removeEntry(q, entry, message)
        settleTaken(id, message, 0)
      end
    end
  end
  return answer({#done, done})
end

-- Leased messages, found by id.
for _, id in ipairs(order) do
  local lease = redis.call('HGET', q.leases, id)
  if lease then
    wanted[id] = nil
    local message = string.sub(lease, 17)
    redis.call('HDEL', q.leases, id)
    redis.call('ZREM', q.deadlines, id)
    local deliveries = tonumber(redis.call('HGET', q.deliveries, id) or '0')
    if action == 'requeue' then
      done[#done + 1] = id
      event('Requeued', q.name, id, deliveries, '')
      requeueReady(q, message) -- back where it stood, as after a nack
    else
      settleTaken(id, message, deliveries)
    end
  end
end
-- Delayed messages.
if next(wanted) then
  for _, message in ipairs(redis.call('ZRANGE', q.delayed, 0, -1)) do
    local id = idOf(message)
    if wanted[id] then
      wanted[id] = nil
      redis.call('ZREM', q.delayed, message)
      local deliveries = tonumber(redis.call('HGET', q.deliveries, id) or '0')
      if action == 'requeue' then
        done[#done + 1] = id
        event('Requeued', q.name, id, deliveries, '')
        pushReady(q, message) -- as if its delay had just ended
      else
        settleTaken(id, message, deliveries)
      end
    end
  end
end
-- Ready messages: one pass over each list, from its front (the RPOP end, LRANGE's last) so that
-- moved and dead-lettered messages reach their new queue in the order they stood here.
if next(wanted) then
  for _, key in ipairs(readyLists(q)) do
    local messages = redis.call('LRANGE', key, 0, -1)
    for i = #messages, 1, -1 do
      local message = messages[i]
      local id = idOf(message)
      if wanted[id] then
        wanted[id] = nil
        if action == 'requeue' then
          done[#done + 1] = id -- ready already
        else
          redis.call('LREM', key, 1, message)
          settleTaken(id, message, tonumber(redis.call('HGET', q.deliveries, id) or '0'))
        end
      end
    end
    if q.type == 'priority' and redis.call('LLEN', key) == 0 then
      redis.call('ZREM', q.prios, string.match(key, ':(-?%d+)$'))
    end
  end
end
return answer({#done, done})
