-- SPDX-License-Identifier: GPL-3.0-or-later
-- A Redis Cluster transfer whose target is gone (a move or a redrive; see lib.lua): the original
-- goes back to its queue as if it had never left, and leaves the outbox; so does every other
-- move or redrive in the outbox bound for the same target, in one step, so that they come back
-- in the order they left: to the front of a list or priority queue the last first (each goes in
-- front of the one after it), to the end of a stream the first first. Given back one by one, as
-- the broker meets them, a batch would stand reversed. A queue deleted meanwhile takes nothing
-- back (its messages went with it).
-- KEYS: meta   ARGV: prefix, queue, now, outbox entry
-- Replies how many entries left the outbox: 0 when the entry had left it already.
local q = open(ARGV[1], ARGV[2])
local outbox = ARGV[1] .. '{' .. ARGV[2] .. '}:outbox'
local target = string.match(ARGV[4], '^[^\n]*\n([^\n]*)\n')
local back, found = {}, false
for _, entry in ipairs(redis.call('LRANGE', outbox, 0, -1)) do
  local kind, to = string.match(entry, '^([^\n]*)\n([^\n]*)\n')
  if kind ~= 'dl' and to == target then
    back[#back + 1] = entry
    found = found or entry == ARGV[4]
  end
end
if not found then return answer(0) end
local first, last, step = #back, 1, -1
if q and q.type == 'stream' then first, last, step = 1, #back, 1 end
for i = first, last, step do
  redis.call('LREM', outbox, 1, back[i])
  local original = q and string.match(back[i], '^[^\n]*\n[^\n]*\n[^\n]*\n[^\n]*\n(.*)$')
  if original and original ~= '' then
    if q.type == 'stream' then pushReady(q, original) else requeueReady(q, original) end
    shift(q, 1)
    event('Requeued', q.name, idOf(original), 0, 'target gone')
  end
end
return answer(#back)
