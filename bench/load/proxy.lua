-- wrk script: absolute-form HTTP requests through a forward proxy.
-- wrk connects to the URL on its command line (the proxy) and asks it for TARGET_URL,
-- e.g.  TARGET_URL=http://127.0.0.1:18080/1k.json wrk -s proxy.lua http://127.0.0.1:13128/
local target = os.getenv("TARGET_URL")
if target == nil or target == "" then
  error("TARGET_URL is not set")
end
wrk.path = target
wrk.headers["Host"] = target:match("^http://([^/]+)")
