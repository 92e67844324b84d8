-- Single publish of a 200-byte JSON message (the whole request body is 200 bytes).
local key = os.getenv("BENCH_KEY")
local queue = os.getenv("BENCH_QUEUE") or "bench"
local prefix = '{"message":{"order":12345,"note":"'
local suffix = '"}}'
local body = prefix .. string.rep("x", 200 - #prefix - #suffix) .. suffix
wrk.method = "POST"
wrk.path = "/messages/" .. queue
wrk.body = body
wrk.headers["X-API-Key"] = key
wrk.headers["Content-Type"] = "application/json"
