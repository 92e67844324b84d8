-- SPDX-License-Identifier: GPL-3.0-or-later
-- KEYS: meta, registry (one server)   ARGV: prefix, queue, now, type, max_size, ttl, visibility_timeout,
--   max_deliveries, dead_letter_queue, generation (cluster: the registry entry's; else empty), partitions
if not createQueue(ARGV[1], ARGV[2], ARGV[4], ARGV[5], ARGV[6], ARGV[7], ARGV[8], ARGV[9], ARGV[3], ARGV[10]) then
  return redis.error_reply('QUEUE_EXISTS queue exists')
end
if ARGV[11] and ARGV[11] ~= '1' then redis.call('HSET', metaKey(ARGV[1], ARGV[2]), 'partitions', ARGV[11]) end
return answer(1)
