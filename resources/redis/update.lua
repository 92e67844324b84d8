-- SPDX-License-Identifier: GPL-3.0-or-later
-- KEYS: meta   ARGV: prefix, queue, now, then option/value pairs of the options that change
-- (max_size, ttl, visibility_timeout, max_deliveries, dead_letter_queue; '' for none; partitions). The type never
-- changes. Every script reads the options when it runs, so the change applies from the next one on.
local q = open(ARGV[1], ARGV[2])
if not q then return notFound() end
for i = 4, #ARGV - 1, 2 do redis.call('HSET', q.meta, ARGV[i], ARGV[i + 1]) end
return answer(1)
