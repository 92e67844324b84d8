-- SPDX-License-Identifier: GPL-3.0-or-later
-- The cluster registry's last step of a delete (and of sweeping a leftover entry): forgets the
-- queue's entry only while it still holds the generation that was deleted, so that a queue made
-- again meanwhile, under a new generation, stays listed.
-- KEYS: registry   ARGV: queue, generation
-- Replies 1 when the entry went, 0 when it holds another generation or was gone.
if redis.call('HGET', KEYS[1], ARGV[1]) == ARGV[2] then return redis.call('HDEL', KEYS[1], ARGV[1]) end
return 0
