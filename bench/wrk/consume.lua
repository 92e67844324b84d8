-- Consume with acknowledge=true (the default), one message per request.
local key = os.getenv("BENCH_KEY")
local queue = os.getenv("BENCH_QUEUE") or "bench"
wrk.method = "GET"
wrk.path = "/messages/" .. queue
wrk.headers["X-API-Key"] = key
