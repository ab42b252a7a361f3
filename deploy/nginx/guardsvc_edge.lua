-- guardsvc at the edge: nginx lets a request through on its own when no block can apply to it.
--
-- One worker at a time pulls guardsvc's edge list (GET /edge/v1/decisions): the whole list once,
-- then every second only what changed since its cursor (?since=). It keeps the list in a shared
-- dictionary, one key per target, which every worker reads directly:
--   n:<version>/<prefix length>/<leading hex digits>   a network (single addresses are /32, /128)
--   d:<SHA-1 of the device id, 20 bytes>               a device (its cookie's value is not held)
-- each holding its expiry (0: none) and expiring with it. A lookup costs one dictionary probe per
-- prefix length the list holds (at most 33 for IPv4, 129 for IPv6; a real list has a few) and one
-- for the device, whatever the number of blocks.
--
-- A request is asked about (forward auth, through the named location given to access()) when:
--   * the list is stale: guardsvc has not answered for `stale_after` seconds (then the fail-open
--     or fail-closed switch of guardsvc.conf decides, as it does for forward auth itself), or the
--     whole list is being (re)loaded;
--   * the browser has no device cookie yet (forward auth gives it one), unless it names its
--     device with X-Device-Id;
--   * its address falls in a listed network, or its device is listed.
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
local CHUNK = 65536

local settings = {}
-- This worker's copy of the prefix lengths the list holds, rebuilt when the shared text changes.
local lengths_text, lengths = nil, { ["4"] = {}, ["6"] = {} }

local function current(expires, now)
    return expires ~= nil and (expires == 0 or expires > now)
end

-- What guardsvc lists of a device id is the SHA-1 hex of it (guardsvc.blocks.edge.device_key); the
-- dictionary holds the 20 bytes themselves, so a request hashes its cookie and formats nothing.
local function device_key(device)
    return "d:" .. ngx.sha1_bin(device)
end

local function from_hex(digits)
    return (string.gsub(digits, "%x%x", function(pair) return string.char(tonumber(pair, 16)) end))
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
local function network_key(version, hex_digits, length)
    local count = math.ceil(length / 4)
    local digits = string.sub(hex_digits, 1, count)
    local spare = count * 4 - length
    if spare > 0 then
        local last = bit.band(tonumber(string.sub(digits, count), 16), bit.band(bit.lshift(0xF, spare), 0xF))
        digits = string.sub(digits, 1, count - 1) .. string.format("%x", last)
    end
    return "n:" .. version .. "/" .. length .. "/" .. digits
end

local function parse_lengths(text)
    local found = { ["4"] = {}, ["6"] = {} }
    for version, length in string.gmatch(text or "", "(%d)/(%d+)") do
        table.insert(found[version], tonumber(length))
    end
    return found
end

local function address_listed(dict, address, now)
    local version, hex_digits = address_hex(address)
    if not version then
        return true -- unreadable: let forward auth judge it
    end
    local text = dict:get("lengths")
    if text ~= lengths_text then
        lengths, lengths_text = parse_lengths(text), text
    end
    for _, length in ipairs(lengths[version]) do
        if current(dict:get(network_key(version, hex_digits, length)), now) then
            return true
        end
    end
    return false
end

-- The shared list when it may be trusted, else nil (stale, missing, or being loaded).
local function fresh_list(now)
    local dict = ngx.shared[DICT_NAME]
    local fresh_at = dict:get("fresh_at")
    if not fresh_at or now - fresh_at > settings.stale_after then
        return nil
    end
    return dict
end

local function readable_device(device)
    return device and #device <= 64 and string.match(device, DEVICE_ID) and device or nil
end

-- Called in the access phase of every request to the guarded application; `ask` is the named
-- location that runs forward auth.
function M.access(ask)
    local now = ngx.now()
    local dict = fresh_list(now)
    if not dict then
        return ngx.exec(ask)
    end
    local device = readable_device(ngx.var.http_x_device_id)
        or readable_device(ngx.var["cookie_" .. settings.device_cookie])
    if not device then
        return ngx.exec(ask) -- a new browser: forward auth gives it its device id
    end
    if current(dict:get(device_key(device)), now) or address_listed(dict, ngx.var.remote_addr, now) then
        return ngx.exec(ask)
    end
end

local TOO_SMALL = "lua_shared_dict " .. DICT_NAME .. " is too small for guardsvc's block list: "
    .. "raise its size in guardsvc-http.conf (about 200 MB a million blocks) and reload nginx"

-- Apply one line of the list: "n <key> <expiry>", "d <sha1> <expiry>", or "<kind> <key> -" (gone).
-- `full`: a target may come on several lines (several blocks), and the latest expiry wins.
local function apply(dict, line, full, now, seen)
    local kind, key, value = string.match(line, "^([nd]) (%S+) (%S+)$")
    if not kind or (kind == "d" and not string.match(key, "^" .. string.rep("%x", 40) .. "$")) then
        return true
    end
    local name = kind == "d" and ("d:" .. from_hex(key)) or (kind .. ":" .. key)
    if value == "-" then
        dict:delete(name)
        return true
    end
    local expires = tonumber(value)
    if not expires or (expires ~= 0 and expires <= now) then
        dict:delete(name)
        return true
    end
    if full then
        local known = dict:get(name)
        if known ~= nil and (known == 0 or (expires ~= 0 and expires <= known)) then
            return true
        end
    end
    local ok, err = dict:safe_set(name, expires, expires == 0 and 0 or expires - now)
    if not ok then
        return nil, err
    end
    if kind == "n" then
        local prefix = string.match(key, "^(%d/%d+)/")
        if prefix and not seen[prefix] then
            seen[prefix] = true
            seen.changed = true
        end
    end
    return true
end

-- Read the body (`length` bytes) a chunk at a time, applying every whole line as it comes.
local function read_lines(sock, dict, length, full, now, seen)
    local left, carry = length, ""
    while left > 0 do
        local chunk, err = sock:receive(math.min(left, CHUNK))
        if not chunk then
            return nil, "body cut short: " .. tostring(err)
        end
        left = left - #chunk
        local text = carry .. chunk
        local position = 1
        while true do
            local stop = string.find(text, "\n", position, true)
            if not stop then
                break
            end
            local ok, apply_err = apply(dict, string.sub(text, position, stop - 1), full, now, seen)
            if not ok then
                return nil, apply_err
            end
            position = stop + 1
        end
        carry = string.sub(text, position)
    end
    return true
end

local function lengths_of(dict)
    local seen = {}
    for prefix in string.gmatch(dict:get("lengths") or "", "(%d/%d+)") do
        seen[prefix] = true
    end
    return seen
end

local function store_lengths(dict, seen)
    local list = {}
    for prefix in pairs(seen) do
        if prefix ~= "changed" then
            table.insert(list, prefix)
        end
    end
    -- Longest prefixes first: single addresses, the commonest entries, are found by the first probe.
    table.sort(list, function(a, b)
        return tonumber(string.match(a, "/(%d+)")) > tonumber(string.match(b, "/(%d+)"))
    end)
    dict:set("lengths", table.concat(list, " "))
end

-- One pull: the whole list (no cursor yet, or guardsvc says so) or the changes since the cursor.
local function pull()
    local dict = ngx.shared[DICT_NAME]
    local sock = ngx.socket.tcp()
    sock:settimeouts(1000, 1000, 30000) -- a whole list of a million blocks takes guardsvc seconds to write
    local ok, err = sock:connect(settings.host, settings.port)
    if not ok then
        return nil, "connect: " .. tostring(err)
    end
    local cursor = dict:get("cursor")
    local request = "GET /edge/v1/decisions" .. (cursor and ("?since=" .. cursor) or "") .. " HTTP/1.1\r\n" ..
        "Host: " .. settings.host .. "\r\nX-Guardsvc-Secret: " .. settings.secret .. "\r\nConnection: close\r\n\r\n"
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
    local length, new_cursor, full
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
            elseif name == "x-guardsvc-cursor" then
                new_cursor = tonumber(value)
            elseif name == "x-guardsvc-full" then
                full = value == "1"
            end
        end
    end
    if status ~= 200 or not length or not new_cursor or full == nil then
        sock:close()
        return nil, "answer: " .. status_line
    end
    local now = ngx.now()
    local seen
    if full then
        -- Start again from nothing: until the list is whole, "fresh_at" is missing and every
        -- request is asked about, so no half-loaded list lets a blocked client through.
        dict:flush_all()
        dict:flush_expired()
        dict:set("pulling", true, 120)
        seen = {}
    else
        seen = lengths_of(dict)
    end
    ok, err = read_lines(sock, dict, length, full, now, seen)
    sock:close()
    if not ok then
        if full or err == "no memory" then
            dict:delete("cursor") -- load the whole list again: this one is incomplete
            dict:delete("fresh_at")
        end
        if err == "no memory" then
            ngx.log(ngx.ERR, TOO_SMALL)
            return nil, err, 60 -- not every second: each try loads the whole list
        end
        return nil, err
    end
    if full or seen.changed then
        store_lengths(dict, seen)
    end
    dict:set("cursor", new_cursor)
    dict:set("fresh_at", ngx.now())
    return true
end

local function tick(premature)
    if premature then
        return
    end
    local dict = ngx.shared[DICT_NAME]
    -- One worker at a time pulls, at most once an interval; the others read what it stored.
    if not dict:add("pulling", true, 120) then
        return
    end
    local ok, err, hold = pull()
    if not ok then
        ngx.log(ngx.WARN, "guardsvc edge list not refreshed: ", err)
    end
    dict:set("pulling", true, hold or settings.every * 0.9)
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
    local dict = fresh_list(now)
    if not dict then
        return nil
    end
    return address_listed(dict, address, now)
end

-- Whether the current list holds this device id (nil: no fresh list); for checks of the matching.
function M.device_listed(device)
    local now = ngx.now()
    local dict = fresh_list(now)
    if not dict then
        return nil
    end
    return current(dict:get(device_key(device)), now)
end

return M
