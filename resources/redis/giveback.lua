-- SPDX-License-Identifier: GPL-3.0-or-later
-- A Redis Cluster transfer whose target is gone (a move or a redrive; see lib.lua): the original
-- goes back to its queue, at the back, and leaves the outbox. The broker meets a batch's entries
-- in the order they left, so they come back in that order, however many rounds and crashes lie
-- between them (to the front, one by one, a batch would stand reversed; gathering the batch
-- first would mean scanning the outbox). A queue deleted meanwhile takes nothing back (its
-- messages went with it).
-- KEYS: meta   ARGV: prefix, queue, now, outbox entry
-- Replies 1 when given back, 0 when the entry had left the outbox already or its queue is gone.
local q = open(ARGV[1], ARGV[2])
local outbox = ARGV[1] .. '{' .. ARGV[2] .. '}:outbox'
if redis.call('LREM', outbox, 1, ARGV[4]) == 0 or not q then return answer(0) end
local _, _, _, _, original = string.match(ARGV[4], '^([^\n]*)\n([^\n]*)\n([^\n]*)\n([^\n]*)\n(.*)$')
if not original or original == '' then return answer(0) end
pushReady(q, original)
shift(q, 1)
event('Requeued', q.name, idOf(original), 0, 'target gone')
return answer(1)
