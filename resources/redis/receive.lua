-- SPDX-License-Identifier: GPL-3.0-or-later
-- A Redis Cluster transfer taken in by its target queue (see lib.lua, "Transfers between slots"):
-- the second step of dead-lettering, moving or redriving into a queue of another slot. Taken once
-- per transfer name: a transfer handed over again after a crash or a failover is answered 0.
-- KEYS: meta (the target's)   ARGV: prefix, target, now, kind, transfer, message, generation (to
--   make a missing dead-letter queue; empty: not enrolled yet)
-- Replies 1 when taken, 0 when taken before; TARGET_NOT_FOUND when a move or redrive target is
-- gone, or was when this transfer was first handed over; NOT_ENROLLED when the dead-letter queue
-- must be made and the registry does not know it yet.
-- A refusal is kept with the taken ones (P{T}:received, "refused <transfer>"): the refused entry
-- goes back to its source (giveback.lua), and another broker handing the same entry over after
-- the target was made again must not put it there too.
local prefix, name, now, kind, transfer, message = ARGV[1], ARGV[2], tonumber(ARGV[3]), ARGV[4], ARGV[5], ARGV[6]
local received = prefix .. '{' .. name .. '}:received'
if redis.call('ZSCORE', received, transfer) then return answer(0) end
local refused = 'refused ' .. transfer
if kind ~= 'dl' and redis.call('ZSCORE', received, refused) then
  return redis.error_reply('TARGET_NOT_FOUND target queue not found')
end
local q = open(prefix, name)
if not q then
  if kind ~= 'dl' then
    redis.call('ZADD', received, now, refused)
    redis.call('PEXPIRE', received, 86400000)
    return redis.error_reply('TARGET_NOT_FOUND target queue not found')
  end
  if ARGV[7] == '' then return redis.error_reply('NOT_ENROLLED queue must be enrolled first') end
  createQueue(prefix, name, 'list', 10000, 86400, 30, 5, '', now, ARGV[7])
  q = open(prefix, name)
end
redis.call('HDEL', q.deliveries, idOf(message))
pushReady(q, message)
shift(q, 1)
if kind == 'redrive' then count(q, 'redriven') end
redis.call('ZADD', received, now, transfer)
redis.call('ZREMRANGEBYSCORE', received, '-inf', now - 86400000)
redis.call('PEXPIRE', received, 86400000) -- gone a day after the last transfer, with its queue or not
return answer(1)
