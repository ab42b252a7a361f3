-- guardsvc at the edge: nginx lets a request through on its own when no block can apply to it.
--
-- One worker at a time pulls guardsvc's edge list (GET /edge/v1/decisions) every second into a
-- shared dictionary; every worker reads it from there. A request is asked about (forward auth,
-- through the named location given to access()) when:
--   * the list is stale: guardsvc has not answered for `stale_after` seconds (then the fail-open
--     or fail-closed switch of guardsvc.conf decides, as it does for forward auth itself);
--   * the browser has no device cookie yet (forward auth gives it one), unless it names its
--     device with X-Device-Id;
--   * its address falls in a listed network, or its device id is listed.
-- Everyone else - nearly every visitor of a guarded site - passes with no round trip. The list
-- is a superset of what blocks (it leaves out allow entries and local-IP narrowing), so a
-- request let through here is one forward auth would let through too; the precise rules stay
-- in one place, guardsvc.
--
-- Installed by guardsvc-http.conf (lua_shared_dict, lua_package_path, init_worker_by_lua_block);
-- guardsvc.conf calls access() in front of the application.

local bit = require("bit")

local M = {}

local DICT_NAME = "guardsvc_edge"
local DEVICE_ID = "^[A-Za-z0-9._:-]+$"

local settings = {}
-- This worker's parse of the shared list, rebuilt when the list's ETag changes.
local parsed_etag, networks, devices, lengths = nil, {}, {}, { ["4"] = {}, ["6"] = {} }

local function parse(text)
    local new_networks, new_devices, seen = {}, {}, { ["4"] = {}, ["6"] = {} }
    local new_lengths = { ["4"] = {}, ["6"] = {} }
    for kind, key, expires in string.gmatch(text or "", "(%a) (%S+) (%d+)\n") do
        expires = tonumber(expires)
        if kind == "n" then
            local version, length = string.match(key, "^(%d)/(%d+)/")
            if version and seen[version] then
                local known = new_networks[key]
                -- The latest expiry wins (0: never).
                if known == nil or known ~= 0 and (expires == 0 or expires > known) then
                    new_networks[key] = expires
                end
                length = tonumber(length)
                if not seen[version][length] then
                    seen[version][length] = true
                    table.insert(new_lengths[version], length)
                end
            end
        elseif kind == "d" then
            local known = new_devices[key]
            if known == nil or known ~= 0 and (expires == 0 or expires > known) then
                new_devices[key] = expires
            end
        end
    end
    networks, devices, lengths = new_networks, new_devices, new_lengths
end

local function current(expires, now)
    return expires ~= nil and (expires == 0 or expires > now)
end

-- An address as its version and hex digits (8 for IPv4, 32 for IPv6); IPv4-mapped IPv6 is IPv4,
-- as guardsvc stores it. nil for anything else.
local function address_hex(text)
    if not text then
        return nil
    end
    local a, b, c, d = string.match(text, "^(%d+)%.(%d+)%.(%d+)%.(%d+)$")
    if a then
        return "4", string.format("%02x%02x%02x%02x", tonumber(a), tonumber(b), tonumber(c), tonumber(d))
    end
    local mapped = string.match(string.lower(text), "^::ffff:(%d+%.%d+%.%d+%.%d+)$")
    if mapped then
        return address_hex(mapped)
    end
    if not string.find(text, ":", 1, true) then
        return nil
    end
    local head, tail = text, nil
    local split = string.find(text, "::", 1, true)
    if split then
        head, tail = string.sub(text, 1, split - 1), string.sub(text, split + 2)
    end
    local function groups(part)
        local found = {}
        if part == "" then
            return found
        end
        for group in string.gmatch(part .. ":", "([^:]*):") do
            if not string.match(group, "^%x%x?%x?%x?$") then
                return nil
            end
            table.insert(found, string.format("%04x", tonumber(group, 16)))
        end
        return found
    end
    local first, last = groups(head), groups(tail or "")
    if not first or not last then
        return nil
    end
    local missing = 8 - #first - #last
    if (tail and missing < 1) or (not tail and missing ~= 0) then
        return nil
    end
    for _ = 1, missing do
        table.insert(first, "0000")
    end
    for _, group in ipairs(last) do
        table.insert(first, group)
    end
    return "6", table.concat(first)
end

-- The listed network key of this prefix length that contains the address: its first
-- ceil(length/4) hex digits, the last one masked to the bits the prefix keeps.
local function network_key(version, hex, length)
    local count = math.ceil(length / 4)
    local digits = string.sub(hex, 1, count)
    local spare = count * 4 - length
    if spare > 0 then
        local last = bit.band(tonumber(string.sub(digits, count), 16), bit.band(bit.lshift(0xF, spare), 0xF))
        digits = string.sub(digits, 1, count - 1) .. string.format("%x", last)
    end
    return version .. "/" .. length .. "/" .. digits
end

local function address_listed(address, now)
    local version, hex = address_hex(address)
    if not version then
        return true -- unreadable: let forward auth judge it
    end
    for _, length in ipairs(lengths[version]) do
        if current(networks[network_key(version, hex, length)], now) then
            return true
        end
    end
    return false
end

-- Bring this worker's parse up to the shared list; false when the list is stale or missing.
local function refresh(now)
    local dict = ngx.shared[DICT_NAME]
    local fresh_at = dict:get("fresh_at")
    if not fresh_at or now - fresh_at > settings.stale_after then
        return false
    end
    local etag = dict:get("etag")
    if etag ~= parsed_etag then
        parse(dict:get("list"))
        parsed_etag = etag
    end
    return true
end

-- Called in the access phase of every request to the guarded application; `ask` is the named
-- location that runs forward auth.
function M.access(ask)
    local now = ngx.now()
    if not refresh(now) then
        return ngx.exec(ask)
    end
    local device = ngx.var.http_x_device_id
    if not (device and string.match(device, DEVICE_ID) and #device <= 64) then
        device = ngx.var["cookie_" .. settings.device_cookie]
        if not (device and string.match(device, DEVICE_ID) and #device <= 64) then
            return ngx.exec(ask) -- a new browser: forward auth gives it its device id
        end
    end
    if current(devices[device], now) or address_listed(ngx.var.remote_addr, now) then
        return ngx.exec(ask)
    end
end

-- One pull: GET the list with the ETag held; store it on 200, note freshness on 200 and 304.
local function pull()
    local dict = ngx.shared[DICT_NAME]
    local sock = ngx.socket.tcp()
    sock:settimeouts(1000, 1000, 2000)
    local ok, err = sock:connect(settings.host, settings.port)
    if not ok then
        return nil, "connect: " .. tostring(err)
    end
    local etag = dict:get("etag")
    local request = "GET /edge/v1/decisions HTTP/1.1\r\nHost: " .. settings.host .. "\r\n" ..
        "X-Guardsvc-Secret: " .. settings.secret .. "\r\nConnection: close\r\n" ..
        (etag and ('If-None-Match: "' .. etag .. '"\r\n') or "") .. "\r\n"
    ok, err = sock:send(request)
    if not ok then
        sock:close()
        return nil, "send: " .. tostring(err)
    end
    local status_line
    status_line, err = sock:receive("*l")
    local status = status_line and tonumber(string.match(status_line, "^HTTP/1%.%d (%d%d%d)"))
    if not status then
        sock:close()
        return nil, "status: " .. tostring(status_line or err)
    end
    local length, new_etag
    while true do
        local line
        line, err = sock:receive("*l")
        if not line then
            sock:close()
            return nil, "headers: " .. tostring(err)
        end
        if line == "" then
            break
        end
        local name, value = string.match(line, "^([^:]+):%s*(.-)%s*$")
        if name then
            name = string.lower(name)
            if name == "content-length" then
                length = tonumber(value)
            elseif name == "etag" then
                new_etag = string.match(value, '^"?(.-)"?$')
            end
        end
    end
    if status == 304 then
        sock:close()
        dict:set("fresh_at", ngx.now())
        return true
    end
    if status ~= 200 or not length or not new_etag then
        sock:close()
        return nil, "answer: " .. status_line
    end
    local body = length > 0 and sock:receive(length) or ""
    sock:close()
    if not body then
        return nil, "body cut short"
    end
    local stored, set_err = dict:set("list", body)
    if not stored then
        return nil, "shared dictionary: " .. tostring(set_err) -- too small: raise lua_shared_dict
    end
    dict:set("etag", new_etag)
    dict:set("fresh_at", ngx.now())
    return true
end

local function tick(premature)
    if premature then
        return
    end
    local dict = ngx.shared[DICT_NAME]
    -- One worker per interval pulls; the others read what it stored.
    if not dict:add("pulling", true, settings.every * 0.9) then
        return
    end
    local ok, err = pull()
    if not ok then
        ngx.log(ngx.WARN, "guardsvc edge list not refreshed: ", err)
    end
end

-- init_worker_by_lua_block: start pulling. guardsvc is "host:port" (@GUARDSVC@).
function M.start(options)
    local host, port = string.match(options.guardsvc, "^(.+):(%d+)$")
    settings = {
        host = host,
        port = tonumber(port),
        secret = options.secret or "",
        every = options.every or 1,
        stale_after = options.stale_after or 5,
        device_cookie = options.device_cookie or "guardsvc_device",
    }
    local ok, err = ngx.timer.every(settings.every, tick)
    if not ok then
        ngx.log(ngx.ERR, "guardsvc edge: no timer: ", err)
    end
    -- The first worker also pulls at once, so a fresh nginx judges locally within moments.
    ngx.timer.at(0, tick)
end

-- Whether the current list might block `address` (nil: no fresh list); for checks of the matching.
function M.address_listed(address)
    local now = ngx.now()
    if not refresh(now) then
        return nil
    end
    return address_listed(address, now)
end

return M
