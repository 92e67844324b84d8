-- Batch publish: 100 messages of 200 bytes each per request.
local key = os.getenv("BENCH_KEY")
local queue = os.getenv("BENCH_QUEUE") or "bench"
local prefix = '{"order":12345,"note":"'
local suffix = '"}'
local one = prefix .. string.rep("x", 200 - #prefix - #suffix) .. suffix
local items = {}
for i = 1, 100 do items[i] = one end
wrk.method = "POST"
wrk.path = "/messages/" .. queue .. "/batch"
wrk.body = '{"messages":[' .. table.concat(items, ",") .. ']}'
wrk.headers["X-API-Key"] = key
wrk.headers["Content-Type"] = "application/json"
