-- SPDX-License-Identifier: GPL-3.0-or-later
-- KEYS: meta, registry (one server)   ARGV: prefix, queue, now
-- Replies {count, generation}: the count as the memory store's, 1 for the queue's record plus 1
-- when it still held messages; the generation for the cluster registry (its entry goes only if
-- it is still this one, so that a queue made again meanwhile stays listed).
-- Leaves P{Q}:deleted (the time, for a day) so that a publish spool draining later can tell a
-- queue deleted on purpose from one Redis lost (see drain.lua).
local q = open(ARGV[1], ARGV[2])
if not q then return notFound() end
local generation = redis.call('HGET', q.meta, 'gen') or ''
local held
if q.type == 'stream' then held = redis.call('XLEN', q.stream) else held = size(q) end
local keys = {q.meta, q.prios, q.delayed, q.leases, q.deadlines, q.deliveries, q.stream, q.ids,
              ARGV[1] .. '{' .. ARGV[2] .. '}:spooled'}
for _, key in ipairs(readyLists(q)) do keys[#keys + 1] = key end
if q.type == 'stream' then
  for _, group in ipairs(groupNames(q)) do
    keys[#keys + 1] = q.groupPrefix .. group
    keys[#keys + 1] = q.deadlinePrefix .. group
  end
  keys[#keys + 1] = q.groupPrefix .. 'names'
end
redis.call('DEL', unpack(keys))
-- A wait on the queue outlives it, for a queue made again under its name (createQueue takes it
-- back): brokers that waited remember their wait as set and do not set it again.
if q.waiting and q.waiting ~= '0' then
  local left = q.waiting - serverMs()
  if left > 0 then redis.call('SET', q.base .. 'waiting', q.waiting, 'PX', left) end
end
if REGISTRY then redis.call('SREM', REGISTRY, ARGV[2]) end
redis.call('SET', ARGV[1] .. '{' .. ARGV[2] .. '}:deleted', ARGV[3], 'PX', 86400000)
return answer({1 + (held > 0 and 1 or 0), generation})
