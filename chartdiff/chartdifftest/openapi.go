package chartdifftest

import "encoding/json"

// contract returns the fake's OpenAPI document, served at /api/v1/openapi.json.
func contract() json.RawMessage { return json.RawMessage(openAPIDocument) }

// openAPIDocument describes the fake's endpoints and the shapes it chose where the API
// description says "not shown".
const openAPIDocument = `{
  "openapi": "3.1.0",
  "info": {"title": "Rhythm-Game Chart Difficulty API (fake)", "version": "1.2.0"},
  "servers": [{"url": "/api/v1"}],
  "components": {
    "securitySchemes": {
      "apiKey": {"type": "apiKey", "in": "header", "name": "x-phm-key"},
      "accountToken": {"type": "apiKey", "in": "header", "name": "x-hm-token"}
    },
    "schemas": {
      "Error": {"type": "object", "properties": {"error": {"type": "object", "properties": {"code": {"type": "string"}, "message": {"type": "string"}}}}},
      "Chart": {"type": "object", "required": ["chart_id", "analyzed"], "properties": {
        "chart_id": {"type": "integer", "minimum": 1}, "name": {"type": "string"}, "level": {"type": "string"},
        "difficulty": {"type": "number"}, "charter": {"type": "string"}, "uploader": {"type": "integer"},
        "analyzed": {"type": "boolean"}, "ref_const": {"type": "number"}, "ref_official": {"type": "number"},
        "ps_score": {"type": "number"}, "nps": {"type": "number"}, "notes": {"type": "integer"},
        "engine_version": {"type": "string"}, "analyzed_at": {"type": "string", "format": "date-time"}}},
      "Key": {"type": "object", "required": ["id"], "properties": {
        "id": {"type": "string"}, "name": {"type": "string"}, "scopes": {"type": "array", "items": {"enum": ["charts:read", "analyses:write", "usage:read"]}},
        "mask": {"type": "string"}, "status": {"enum": ["active", "revoked", "expired"]},
        "created_at": {"type": "string"}, "expires_at": {"type": ["string", "null"]}, "last_used_at": {"type": ["string", "null"]}, "revoked_at": {"type": ["string", "null"]}}}
    }
  },
  "paths": {
    "/charts/{chart_id}": {"get": {"operationId": "getChart", "security": [{}, {"apiKey": ["charts:read"]}],
      "parameters": [{"name": "chart_id", "in": "path", "required": true, "schema": {"type": "integer", "minimum": 1}}],
      "responses": {"200": {"description": "stored values, or analyzed false"}}}},
    "/charts": {"get": {"operationId": "listCharts", "security": [{}, {"apiKey": ["charts:read"]}],
      "parameters": [
        {"name": "page", "in": "query", "schema": {"type": "integer", "minimum": 1, "default": 1}},
        {"name": "pageSize", "in": "query", "schema": {"type": "integer", "minimum": 1, "maximum": 200, "default": 50}},
        {"name": "sort", "in": "query", "schema": {"enum": ["chart_id", "name", "level", "difficulty", "ref_const", "ref_official", "ps_score", "nps", "notes"], "default": "chart_id"}},
        {"name": "order", "in": "query", "schema": {"enum": ["asc", "desc"], "default": "asc"}},
        {"name": "q", "in": "query", "schema": {"type": "string", "maxLength": 60}},
        {"name": "level", "in": "query", "schema": {"type": "string"}},
        {"name": "only", "in": "query", "schema": {"enum": ["official", "stale"]}},
        {"name": "build", "in": "query", "schema": {"type": "string"}}],
      "responses": {"200": {"description": "{total, page, pageSize, charts}"}, "400": {"description": "invalid_sort_field, with x-allowed-sort"}}}},
    "/stats": {"get": {"operationId": "getStats", "responses": {"200": {"description": "{charts_stored, charts_analyzed, coverage, active_users, engine_version}"}, "502": {"description": "stats_unavailable"}}}},
    "/charters/{uid}": {"get": {"operationId": "getCharter",
      "parameters": [{"name": "uid", "in": "path", "required": true, "schema": {"type": "string", "pattern": "^[0-9]+$"}},
        {"name": "maxPages", "in": "query", "schema": {"type": "integer", "minimum": 1, "maximum": 5, "default": 3}}],
      "responses": {"200": {"description": "{uid, pages_read, has_more, charts}"}, "502": {"description": "upstream_unavailable"}}}},
    "/players/{uid}": {"get": {"operationId": "getPlayer",
      "parameters": [{"name": "uid", "in": "path", "required": true, "schema": {"type": "integer", "minimum": 1}}],
      "responses": {"200": {"description": "public profile; stats null when unavailable"}, "404": {"description": "player_not_found"}}}},
    "/analyses": {"post": {"operationId": "analyze", "security": [{}, {"apiKey": ["analyses:write"]}],
      "requestBody": {"content": {"application/json": {"schema": {"type": "object", "required": ["chart_id"], "additionalProperties": false, "properties": {"chart_id": {"type": "integer", "minimum": 1}}}}}},
      "responses": {"200": {"description": "the chart's values plus cached"}, "503": {"description": "analysis_busy"}}}},
    "/usage": {"get": {"operationId": "getUsage", "security": [{"apiKey": ["usage:read"]}, {"accountToken": []}],
      "responses": {"200": {"description": "{account_id, requests_total, analyses_total, limits, keys}"}}}},
    "/meta": {"get": {"operationId": "getMeta", "parameters": [{"name": "diag", "in": "query", "schema": {"enum": ["1"]}}],
      "responses": {"200": {"description": "{service, version, build, engine_version, diag?: {headers: {name: length}}}"}}}},
    "/openapi.json": {"get": {"operationId": "getContract", "responses": {"200": {"description": "this document"}}}},
    "/keys": {
      "get": {"operationId": "listKeys", "security": [{"accountToken": []}], "responses": {"200": {"description": "{keys}"}}},
      "post": {"operationId": "createKey", "security": [{"accountToken": []}],
        "requestBody": {"content": {"application/json": {"schema": {"type": "object", "properties": {"name": {"type": "string"}, "scopes": {"type": "array"}, "expires_in_days": {"enum": [30, 90, 365, null]}}}}}},
        "responses": {"201": {"description": "{key, plaintext}"}, "409": {"description": "key_limit_reached"}}}},
    "/keys/{id}": {
      "patch": {"operationId": "updateKey", "security": [{"accountToken": []}], "responses": {"200": {"description": "{key}"}}},
      "delete": {"operationId": "deleteKey", "security": [{"accountToken": []}], "responses": {"200": {"description": "{key}"}}}},
    "/keys/{id}/rotate": {"post": {"operationId": "rotateKey", "security": [{"accountToken": []}], "responses": {"200": {"description": "{key, plaintext, revoked_id}"}}}}
  }
}`
