-- wrk's side of the bench (bench/wrkLoad.ts): pushes jobs and awaits them, each await sent on
-- another connection than the one that pushed the job. A connection whose push was answered
-- takes the oldest job another connection pushed, if one waits, else pushes again; one whose
-- await was answered takes the oldest waiting job, or pushes. done() prints one JSON line.
-- Run: wrk -t1 -c32 -d10s -s bench/wrk/pushAwait.lua <url> -- <api key> <push body JSON>

local threads = {}

function setup(thread)
  table.insert(threads, thread)
end

local key, body
local pushed = {} -- ids pushed and not yet awaited, oldest first
local justPushed = nil -- the id whose push answer came last: its connection asks next
local finished, failed = 0, 0

function init(args)
  key, body = args[1], args[2]
end

function request()
  if #pushed > 0 and pushed[1] ~= justPushed then
    local id = table.remove(pushed, 1)
    return wrk.format("GET", "/v2/jobs/" .. id .. "/await", { ["X-API-Key"] = key })
  end
  return wrk.format("POST", "/v2/push", { ["X-API-Key"] = key, ["Content-Type"] = "application/json" }, body)
end

function response(status, headers, text)
  justPushed = nil
  local id = text:match('"id":"([^"]+)"')
  local state = text:match('"status":"([^"]*)"')
  if status == 200 and id ~= nil and (state == "queued" or state == "processing") then
    table.insert(pushed, id)
    justPushed = id
  elseif status == 200 and state == "finished" then
    finished = finished + 1
  else
    failed = failed + 1
  end
  wrk.thread:set("finished", finished)
  wrk.thread:set("failed", failed)
end

function done(summary, latency, requests)
  local total, failures = 0, 0
  for _, thread in ipairs(threads) do
    total = total + (thread:get("finished") or 0)
    failures = failures + (thread:get("failed") or 0)
  end
  io.write(string.format('{"jobs":%d,"failures":%d,"seconds":%f}\n', total, failures, summary.duration / 1e6))
end
