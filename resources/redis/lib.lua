-- SPDX-License-Identifier: GPL-3.0-or-later
-- Shared by every BrokerDesk script. On Redis 7+ and Valkey it is the head of one function library
-- (FUNCTION LOAD once per node, then FCALL): its functions are made once, and each script is a
-- function of the library that starts with begin(keys, args). Where FUNCTION is not available it
-- is prepended to each script instead (EVALSHA), and runs with every call. RedisScripts builds both.
--
-- Keys of queue Q under prefix P all carry the hash tag {Q}:
--   P{Q}:meta        HASH   type, options, created_ms, the lifetime counters, and `waiting`: until when (ms,
--                           Redis's clock) a broker's consumer waits on Q (await.lua; wake() announces ready
--                           messages until then)
--   P{Q}:ready       LIST   ready messages of a list queue: LPUSH at the back, RPOP at the front
--   P{Q}:ready:<n>   LIST   ready messages of priority n (priority queues); P{Q}:prios ZSET of the n in use
--   P{Q}:delayed     ZSET   messages not yet due, scored by due time (ms)
--   P{Q}:leases      HASH   id -> 16-hex receipt .. message, for messages out on a lease
--   P{Q}:deadlines   ZSET   id scored by lease deadline (ms)
--   P{Q}:deliveries  HASH   id -> deliveries so far, while the message is in the queue
--   P{Q}:stream      STREAM stream queues: field "m" holds the message; consumer groups as Redis has them
--   P{Q}:ids         HASH   stream queues: message id -> stream entry id, while the entry is in the stream
--   P{Q}:g:names     HASH   stream queues: the consumer groups made so far
--   P{Q}:g:<group>   HASH   stream queues: entry id -> receipt, for pending entries on a lease; a pending
--                           entry without one is claimable (its lease ran out or it was nacked)
--   P{Q}:gd:<group>  ZSET   stream queues: entry id scored by lease deadline (ms)
--   P{Q}:spooled     HASH   publish spool identity -> highest batch number drained into this queue
--   P{Q}:deleted     STRING when the queue was deleted (ms), kept for a day after a delete (drain.lua)
--   P{Q}:outbox      LIST   cluster: messages bound for queues in other slots, until handed over (transfers below)
--   P{Q}:transfers   STRING cluster: counter that names this queue's transfers
--   P{Q}:received    ZSET   cluster: transfers taken in (and "refused <transfer>" for moves and redrives
--                           refused), scored by time (ms), kept for a day: taken once
--   P{Q}:waiting     STRING a wait that outlived its queue's delete (delete.lua), until its end: the queue
--                           made again under the name takes it back (createQueue)
--   Pqueues          SET    names of all queues (the registry; never KEYS); on a cluster Pregistry instead
--   Pnodes           STRING counter that gives each broker its node number for message ids
--
-- A message is compact JSON that always begins {"id":"<id>","ts":<ms>, -- ts starts its TTL --
-- followed by an optional "dl":{...} (where and why it was dead-lettered), then "pr":<priority>,
-- so that scripts can read and rewrite those fields without decoding the body.
-- Times come from the broker (ARGV), so that all brokers and tests agree on one clock.
-- KEYS[1] is always the queue's meta key: it names the slot. A script reaches the queue's other keys
-- (same hash tag, same slot) through the prefix. On one server KEYS[2] is the registry. On a Redis
-- Cluster the registry lives in a slot of its own (Pregistry, a HASH name -> generation), kept by
-- the broker in separate steps (ClusterQueueRegistry), and scripts leave it alone; KEYS[2..]
-- declare the queue's fixed keys there (RedisOperations::run), which scripts still reach through
-- the prefix. Dead-lettering and redrive reach keys of other queues (docs/redis.md, "Redis Cluster").
-- The call's keys and arguments, and what it gathers as it runs: set afresh by begin() for every
-- call, since a library's functions outlive the calls.
local KEYS, ARGV, REGISTRY, EVENTS, WOKEN
local function begin(keys, args)
  KEYS, ARGV = keys, args
  REGISTRY = #keys == 2 and keys[2] or nil
  EVENTS = nil -- made by the first event (most calls have none)
  WOKEN = nil -- made by the first queue with a wait on it (wake)
end

-- Redis's clock (ms). Waits are set and read by it: brokers' clocks need not agree for wake-ups.
-- By pcall: an ACL user may lack TIME (it is in no category but @fast), and a script must not stop
-- half-way for it; such a user's scripts take the broker's clock (ARGV[3]) instead, and wake-ups
-- then need the brokers' clocks to agree within the wait's margin.
local function serverMs()
  local t = redis.pcall('TIME')
  if t.err then return ARGV[3] + 0 end
  return t[1] * 1000 + math.floor(t[2] / 1000)
end

local function event(kind, queue, id, deliveries, detail)
  if not EVENTS then EVENTS = {} end
  EVENTS[#EVENTS + 1] = kind
  EVENTS[#EVENTS + 1] = queue
  EVENTS[#EVENTS + 1] = id or ''
  EVENTS[#EVENTS + 1] = tostring(deliveries or 0)
  EVENTS[#EVENTS + 1] = detail or ''
end

-- A script's reply: {result, events}; {result} when it has no events to tell (most calls), and the
-- result alone when it is a number or text besides (RedisOperations::run reads all three). Redis
-- turns every Lua table of a reply into RESP one field at a time: a table costs it about 2.7 k
-- instructions, an empty one about as much as a command.
local function answer(result)
  if EVENTS then return {result, EVENTS} end
  if type(result) == 'table' then return {result} end
  return result
end

local function parse(message)
  local id, ts, rest = string.match(message, '^{"id":"([^"]+)","ts":(%d+),(.*)$')
  return id, tonumber(ts), rest
end

-- A stored message's id, without copying the rest of it as parse() does.
local function idOf(message)
  return (string.match(message, '^{"id":"([^"]+)"'))
end

-- A stored message's id and timestamp (text: arithmetic converts it), by one match.
local function stampOf(message)
  return string.match(message, '^{"id":"([^"]+)","ts":(%d+),')
end

local function withoutDeadLetter(rest)
  return (string.gsub(rest, '^"dl":{[^}]*},', '', 1))
end

local function priorityOf(message)
  local _, _, rest = parse(message)
  return tonumber(string.match(withoutDeadLetter(rest), '^"pr":(-?%d+),')) or 0
end

local function metaKey(prefix, name) return prefix .. '{' .. name .. '}:meta' end

-- Adds a counter; by (1 when nil) given as text where it can be: Lua makes a number text with
-- sprintf for every command argument.
local function count(q, field, by)
  redis.call('HINCRBY', q.meta, field, (by == nil or by == 1) and '1' or by)
end

-- A queue's key names are made when a script first asks for one (q.ready, q.leases, ...): a script
-- uses a few of them, and each is a new string for Lua to hash.
local KEY_SUFFIXES = {
  ready = 'ready', prios = 'prios', delayed = 'delayed', leases = 'leases',
  deadlines = 'deadlines', deliveries = 'deliveries', stream = 'stream', ids = 'ids', groupPrefix = 'g:',
  deadlinePrefix = 'gd:', outbox = 'outbox', transfers = 'transfers',
}

-- How many messages a list or priority queue holds (ready, delayed and leased: what max_size
-- counts) is kept without counting them: held = published - acked + held_offset, three fields of
-- the meta hash. A publish and an ack count themselves already (published, acked), so the commonest
-- changes keep it at no cost and a publish reads it with the type; every other arrival
-- (dead-lettered, moved, redriven or handed in, given back) and departure (expired, dead-lettered
-- or dropped, deleted, moved or redriven away, purged) moves held_offset (shift). A queue without
-- the field (made by an earlier version) gets it from its lists when a script first needs it, and
-- every tenth reaper round checks it against the lists (maintain.lua), mending it if it is wrong.
-- Stream queues count XLEN instead.
local size -- below, with the ready lists

-- What a script reads of a queue's meta hash (open): a set of fields, which the set's own function
-- makes into q's values at once. (Made on first use through a metatable they cost Redis about 3 k
-- instructions each: a Lua call, two lookups and a rawset.) A number the hash lacks is false; a
-- value the set does not read is not in q, and asking for it is an error, not a nil.
local VALUE_NAMES = {
  maxSize = true, offset = true, ttlMs = true, visibilityMs = true, maxDeliveries = true, dlq = true,
  published = true, acked = true, delivered = true, waiting = true,
}
local KEYS_OF = {__index = function(q, name)
  local suffix = KEY_SUFFIXES[name]
  if not suffix then
    if VALUE_NAMES[name] then error('queue ' .. q.name .. ' was opened without its ' .. name) end
    return nil
  end
  local key = q.base .. suffix
  q[name] = key -- a plain assignment: the metatable has no __newindex
  return key
end}
-- Every option (the default); what a change that adds messages needs (publish, a move's target);
-- what taking messages needs (consume). Each makes q in one table constructor, which sizes the
-- table for what it holds and a few key names more (a table grown a field at a time is rehashed).
-- Arithmetic on a field's text converts it (one strtod; tonumber is a call and two of them). HMGET
-- gives false for a missing field: a missing held_offset stays false (heldCount makes it), counters
-- missing from an old queue's hash (no HINCRBY made them yet) are 0.
local OPTIONS = {names = {'type', 'max_size', 'held_offset', 'ttl', 'visibility_timeout', 'max_deliveries',
                          'dead_letter_queue', 'waiting'}, make = function(f, name, prefix, base, meta)
  return {name = name, prefix = prefix, base = base, meta = meta, type = f[1], woken = false,
          maxSize = f[2] + 0, offset = f[3] and f[3] + 0, ttlMs = f[4] * 1000, visibilityMs = f[5] * 1000,
          maxDeliveries = f[6] + 0, dlq = f[7] or '', waiting = f[8]}
end}
local COUNTING = {names = {'type', 'max_size', 'held_offset', 'published', 'acked', 'waiting'}, make = function(f, name, prefix, base, meta)
  return {name = name, prefix = prefix, base = base, meta = meta, type = f[1], woken = false,
          maxSize = f[2] + 0, offset = f[3] and f[3] + 0, published = (f[4] or 0) + 0,
          acked = (f[5] or 0) + 0, waiting = f[6]}
end}
local TAKING = {names = {'type', 'held_offset', 'ttl', 'visibility_timeout', 'dead_letter_queue', 'acked',
                         'delivered'}, make = function(f, name, prefix, base, meta)
  return {name = name, prefix = prefix, base = base, meta = meta, type = f[1], woken = false,
          offset = f[2] and f[2] + 0, ttlMs = f[3] * 1000, visibilityMs = f[4] * 1000, dlq = f[5] or '',
          acked = (f[6] or 0) + 0, delivered = (f[7] or 0) + 0}
end}

local function open(prefix, name, fields)
  fields = fields or OPTIONS
  local base = prefix .. '{' .. name .. '}:'
  local meta = base .. 'meta'
  local f = redis.call('HMGET', meta, unpack(fields.names))
  if not f[1] then return nil end
  return setmetatable(fields.make(f, name, prefix, base, meta), KEYS_OF)
end

-- What q holds against max_size, by its count (q opened with COUNTING). Writes the count first when the
-- queue has none yet.
local function heldCount(q)
  if q.type == 'stream' then return redis.call('XLEN', q.stream) end
  if not q.offset then
    local n = size(q)
    q.offset = n - q.published + q.acked
    redis.call('HSET', q.meta, 'held_offset', q.offset)
    return n
  end
  return q.published - q.acked + q.offset
end

-- A message arrived (by) or left (-by) other than by a publish or an ack. A queue without a count
-- yet has nothing to move: it is made from the lists when first needed.
local function shift(q, by)
  if q.offset and q.type ~= 'stream' then
    redis.call('HINCRBY', q.meta, 'held_offset', by)
    q.offset = q.offset + by
  end
end

-- The defaults a dead-letter queue gets when dead-lettering creates it (as QueueConfig{} does).
-- `generation` (cluster: the registry entry's) is kept in the meta hash as "gen".
local function createQueue(prefix, name, qtype, maxSize, ttl, visibility, maxDeliveries, dlq, nowMs, generation)
  local meta = metaKey(prefix, name)
  if redis.call('EXISTS', meta) == 1 then return false end
  -- In the order scripts read them (open): a small hash is a list Redis searches from its start.
  -- A wait on a queue of this name that was deleted lives on (delete.lua).
  local base = prefix .. '{' .. name .. '}:'
  local waiting = redis.call('GET', base .. 'waiting')
  if waiting then redis.call('DEL', base .. 'waiting') end
  redis.call('HSET', meta, 'type', qtype, 'max_size', maxSize, 'held_offset', 0, 'published', 0, 'acked', 0,
             'waiting', waiting or 0, 'ttl', ttl, 'visibility_timeout', visibility, 'max_deliveries', maxDeliveries,
             'dead_letter_queue', dlq, 'created_ms', nowMs, 'delivered', 0, 'nacked', 0, 'expired', 0,
             'dead_lettered', 0, 'dropped', 0, 'redriven', 0)
  if generation and generation ~= '' then redis.call('HSET', meta, 'gen', generation) end
  if REGISTRY then redis.call('SADD', REGISTRY, name) end
  redis.call('DEL', prefix .. '{' .. name .. '}:deleted')
  return true
end


-- Ready messages -------------------------------------------------------------------------------

-- Long polls on other brokers (RedisWakeups): while one of them waits on Q (until the meta hash's
-- `waiting`, read with the queue's options: no command of its own while nobody waits), the first
-- message a script makes ready in Q publishes Q's name on the channel P .. 'wake', once per script
-- run however often the script opens Q (dead-lettering opens the dead-letter queue per message).
-- By pcall: a script is not undone when it fails, and an ACL user without the channel must not
-- leave a change half-made (the reaper wakes the other brokers then).
local function wake(q)
  if q.woken then return end
  q.woken = true
  local waiting = q.waiting
  if not waiting or waiting == '0' then return end
  if not WOKEN then WOKEN = {} elseif WOKEN[q.name] ~= nil then return end
  local waited = waiting + 0 >= serverMs()
  WOKEN[q.name] = waited
  if waited then
    redis.pcall('PUBLISH', q.prefix .. 'wake', q.name)
  else
    redis.call('HSET', q.meta, 'waiting', '0') -- ended: later scripts need not read the clock for it
  end
end

local function pushReady(q, message)      -- at the back of the line
  wake(q)
  if q.type == 'priority' then
    local p = priorityOf(message)
    redis.call('LPUSH', q.ready .. ':' .. p, message)
    redis.call('ZADD', q.prios, p, p)
  elseif q.type == 'stream' then
    local entry = redis.call('XADD', q.stream, '*', 'm', message)
    redis.call('HSET', q.ids, idOf(message), entry)
  else
    redis.call('LPUSH', q.ready, message)
  end
end

-- Puts the messages ARGV[from], ARGV[from + 2], … ARGV[to - 1] (each after its due time: '0' for
-- now, else ms) where they go, in order: those due later in the delayed set (scored by the time as
-- the broker wrote it), the others ready. A list queue's ready ones are gathered in `ready`, for
-- the caller's pushGathered: one command for them all.
local function addMessages(q, from, to, ready)
  local now -- read with the first due time: most messages are due now ('0'), and each number is an strtod
  for i = from, to, 2 do
    local due = 0
    if ARGV[i] ~= '0' then
      due = tonumber(ARGV[i])
      now = now or tonumber(ARGV[3])
    end
    if due > 0 and due > now then
      redis.call('ZADD', q.delayed, ARGV[i], ARGV[i + 1])
    elseif q.type == 'list' then
      ready[#ready + 1] = ARGV[i + 1]
    else
      pushReady(q, ARGV[i + 1])
    end
  end
end

-- LPUSHes what addMessages gathered, in order, a few thousand at a time: Lua's unpack gives at
-- most about 8,000 values (max_batch may be larger).
local PUSH_CHUNK = 4000
local function pushGathered(q, ready)
  if #ready == 0 then return end
  wake(q)
  if #ready <= PUSH_CHUNK then return redis.call('LPUSH', q.ready, unpack(ready)) end
  for first = 1, #ready, PUSH_CHUNK do
    redis.call('LPUSH', q.ready, unpack(ready, first, math.min(first + PUSH_CHUNK - 1, #ready)))
  end
end

local function requeueReady(q, message)   -- back where it stood: the front
  wake(q)
  if q.type == 'priority' then
    local p = priorityOf(message)
    redis.call('RPUSH', q.ready .. ':' .. p, message)
    redis.call('ZADD', q.prios, p, p)
  else
    redis.call('RPUSH', q.ready, message)
  end
end

local function popReady(q)
  if q.type ~= 'priority' then return redis.call('RPOP', q.ready) end
  while true do
    local top = redis.call('ZREVRANGE', q.prios, 0, 0)
    if #top == 0 then return false end
    local key = q.ready .. ':' .. top[1]
    local message = redis.call('RPOP', key)
    if redis.call('LLEN', key) == 0 then redis.call('ZREM', q.prios, top[1]) end
    if message then return message end
  end
end

-- Every ready list, highest priority first (list queues: the one list).
local function readyLists(q)
  if q.type ~= 'priority' then return {q.ready} end
  local lists = {}
  for _, p in ipairs(redis.call('ZREVRANGE', q.prios, 0, -1)) do lists[#lists + 1] = q.ready .. ':' .. p end
  return lists
end

local function readyCount(q)
  local n = 0
  for _, key in ipairs(readyLists(q)) do n = n + redis.call('LLEN', key) end
  return n
end

-- What q holds, counted from its lists: ready, delayed and leased.
size = function(q, ready)
  return (ready or readyCount(q)) + redis.call('ZCARD', q.delayed) + redis.call('HLEN', q.leases)
end

-- The reaper's check of q's held count against its lists (read afresh: the run may have moved it
-- through another opening of q); `ready` when the caller counted the ready lists already. Returns 1
-- when the count was wrong and is mended, 0 when it was right or is made now for the first time.
local function mendHeld(q, ready)
  local f = redis.call('HMGET', q.meta, 'held_offset', 'published', 'acked')
  local offset = size(q, ready) - (tonumber(f[2]) or 0) + (tonumber(f[3]) or 0)
  if tonumber(f[1]) == offset then return 0 end
  redis.call('HSET', q.meta, 'held_offset', offset)
  return f[1] and 1 or 0
end

-- Transfers between slots (Redis Cluster) -----------------------------------------------------

-- The cluster slot of a queue's keys: CRC16 (XMODEM) of its name, the hash tag, modulo 16384.
local function slotOf(name)
  local crc = 0
  for i = 1, #name do
    crc = bit.bxor(crc, bit.lshift(string.byte(name, i), 8))
    for _ = 1, 8 do
      if bit.band(crc, 0x8000) ~= 0 then
        crc = bit.band(bit.bxor(bit.lshift(crc, 1), 0x1021), 0xffff)
      else
        crc = bit.band(bit.lshift(crc, 1), 0xffff)
      end
    end
  end
  return bit.band(crc, 16383)
end

-- Whether a script of queue `from` may touch the keys of queue `name`: always on one server, on a
-- cluster when both share a slot.
local function reachable(from, name) return REGISTRY ~= nil or slotOf(from) == slotOf(name) end

-- A message bound for a queue this script cannot reach waits in its own queue's outbox, in order,
-- as "kind \n target \n transfer \n message \n original" (compact JSON holds no raw newline),
-- until the broker hands it over with receive.lua (taken once per transfer name, whatever is
-- repeated after a crash or a failover) and then removes it with LREM. Kinds: dl (the target is
-- the dead-letter queue, made with defaults when missing), move and redrive (a target that is
-- gone gives the original back to this queue: giveback.lua).
-- A transfer's name holds the message id and the time besides the counter, so that a counter a
-- failover set back (replication is asynchronous) never names a new transfer like an old one.
local function sendAway(q, kind, target, message, original, nowMs)
  local transfer = q.name .. ':' .. idOf(message) .. ':' .. nowMs .. ':' .. redis.call('INCR', q.transfers)
  redis.call('RPUSH', q.outbox, kind .. '\n' .. target .. '\n' .. transfer .. '\n' .. message .. '\n' .. (original or ''))
end

-- Dead-lettering --------------------------------------------------------------------------------

-- Hands a message the queue gives up on to its dead-letter queue (created with defaults when
-- missing), or drops it (counted) when there is none. Dead-letter queues take messages beyond
-- max_size: refusing would lose them. On a cluster a dead-letter queue in another slot (or one
-- still to be made, which the registry must know first) gets it by a transfer.
local function deadLetter(q, message, reason, nowMs, streamDeliveries)
  local id = idOf(message)
  local deliveries = streamDeliveries or tonumber(redis.call('HGET', q.deliveries, id) or '0')
  redis.call('HDEL', q.deliveries, id)
  shift(q, -1)
  if q.dlq == '' then
    count(q, 'dropped')
    event('Dropped', q.name, id, deliveries, reason)
    return false
  end
  count(q, 'dead_lettered')
  event('DeadLettered', q.name, id, deliveries, reason)
  local _, _, rest = parse(message)
  local moved = string.format('{"id":"%s","ts":%d,"dl":{"q":"%s","r":"%s","at":%d},%s',
                              id, nowMs, q.name, reason, nowMs, withoutDeadLetter(rest))
  local dlq = reachable(q.name, q.dlq) and open(q.prefix, q.dlq)
  if not dlq and not REGISTRY then
    sendAway(q, 'dl', q.dlq, moved, nil, nowMs)
    return true
  end
  if not dlq then
    createQueue(q.prefix, q.dlq, 'list', 10000, 86400, 30, 5, '', nowMs)
    dlq = open(q.prefix, q.dlq)
  end
  pushReady(dlq, moved)
  shift(dlq, 1)
  redis.call('HDEL', dlq.deliveries, id)
  return true
end

-- TTL ran out before delivery: counted, then dead-lettered when the queue has a dead-letter queue.
local function expire(q, message, nowMs)
  local id = idOf(message)
  count(q, 'expired')
  event('Expired', q.name, id, 0, '')
  if q.dlq ~= '' then
    deadLetter(q, message, 'expired', nowMs)
  else
    redis.call('HDEL', q.deliveries, id)
    shift(q, -1)
  end
end

local function isExpired(q, message, nowMs)
  return tonumber(string.match(message, '^{"id":"[^"]+","ts":(%d+),')) + q.ttlMs <= nowMs
end

-- Stream queues ---------------------------------------------------------------------------------

local function groupNames(q) return redis.call('HKEYS', q.groupPrefix .. 'names') end

-- Deliveries of a pending entry so far (Redis counts them in the group's pending entries list);
-- nil when the entry is not pending in the group.
local function pendingDeliveries(q, group, entry)
  local p = redis.call('XPENDING', q.stream, group, entry, entry, 1)
  if #p == 0 then return nil end
  return tonumber(p[1][4])
end

local function forgetPending(q, group, entry)
  redis.call('XACK', q.stream, group, entry)
  redis.call('HDEL', q.groupPrefix .. group, entry)
  redis.call('ZREM', q.deadlinePrefix .. group, entry)
end

local function entryMessage(q, entry)
  local e = redis.call('XRANGE', q.stream, entry, entry)
  if #e == 0 then return nil end
  return e[1][2][2]
end

-- Removes an entry from the stream and from every group.
local function removeEntry(q, entry, message)
  redis.call('XDEL', q.stream, entry)
  redis.call('HDEL', q.ids, idOf(message))
  for _, group in ipairs(groupNames(q)) do forgetPending(q, group, entry) end
end

local function entryBefore(a, b) -- stream ids "ms-seq"
  local am, as = string.match(a, '^(%d+)-(%d+)$')
  local bm, bs = string.match(b, '^(%d+)-(%d+)$')
  am, as, bm, bs = tonumber(am), tonumber(as), tonumber(bm), tonumber(bs)
  return am < bm or (am == bm and as < bs)
end

-- Entries every group has been given and has acknowledged are done: they leave the stream. Without
-- any group nothing is done with, so entries wait (max_size refuses publishes meanwhile).
local function trimStream(q, limit)
  if redis.call('EXISTS', q.stream) == 0 then return end
  local groups = redis.call('XINFO', 'GROUPS', q.stream)
  if #groups == 0 then return end
  -- Per group, the end of what it is done with: everything before its oldest pending entry
  -- (exclusive), or else everything it was given (inclusive). The stream keeps what any group needs.
  local bound, exclusive = nil, false
  for _, g in ipairs(groups) do
    local info = {}
    for i = 1, #g, 2 do info[g[i]] = g[i + 1] end
    local id, excl = info['last-delivered-id'], false
    local pending = redis.call('XPENDING', q.stream, info['name'], '-', '+', 1)
    if #pending > 0 then id, excl = pending[1][1], true end
    if bound == nil or entryBefore(id, bound) or (id == bound and excl) then bound, exclusive = id, excl end
  end
  if bound == '0-0' then return end
  local done = redis.call('XRANGE', q.stream, '-', (exclusive and '(' or '') .. bound, 'COUNT', limit or 1000)
  for _, e in ipairs(done) do
    redis.call('XDEL', q.stream, e[1])
    redis.call('HDEL', q.ids, idOf(e[2][2]))
  end
end

local function notFound() return redis.error_reply('QUEUE_NOT_FOUND queue not found') end

-- Where a stored message's payload field begins (the index of its ,"d":"), or nil. The payload is
-- the last field, and a quote inside it is always escaped, so the last ,"d":" starts it.
local function payloadStart(message)
  local at, from = nil, 1
  while true do
    local found = string.find(message, ',"d":"', from, true)
    if not found then return at end
    at, from = found, found + 1
  end
end
