-- SPDX-License-Identifier: GPL-3.0-or-later
-- KEYS: meta   ARGV: prefix, queue
-- Removes ready, delayed and leased messages; replies how many.
local q = open(ARGV[1], ARGV[2])
if not q then return notFound() end
if q.type == 'stream' then
  -- Groups are made again at the end of the emptied stream: nothing pending, nothing to read.
  local n = redis.call('XLEN', q.stream)
  redis.call('XTRIM', q.stream, 'MAXLEN', 0)
  redis.call('DEL', q.ids)
  for _, group in ipairs(groupNames(q)) do
    redis.call('DEL', q.groupPrefix .. group, q.deadlinePrefix .. group)
    redis.call('XGROUP', 'DESTROY', q.stream, group)
    redis.call('XGROUP', 'CREATE', q.stream, group, '$', 'MKSTREAM')
  end
  return answer(n)
end
local n = size(q)
local keys = {q.prios, q.delayed, q.leases, q.deadlines, q.deliveries}
for _, key in ipairs(readyLists(q)) do keys[#keys + 1] = key end
redis.call('DEL', unpack(keys))
mendHeld(q, 0) -- nothing held now
return answer(n)
