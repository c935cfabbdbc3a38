/* Node-API binding of the HTML extractor (html-extract.h): `htmlExtract` of the addon. */
#ifndef NWAX_HTML_BINDING_H
#define NWAX_HTML_BINDING_H

#define NAPI_VERSION 8
#include <node_api.h>

napi_value nwax_html_extract_binding(napi_env env, napi_callback_info info);
/* htmlExtractUtf8(bytes, bomAt, textLimit, decode): the same over a UTF-8 page's bytes (utf8-decode.h). */
napi_value nwax_html_extract_utf8_binding(napi_env env, napi_callback_info info);
/* htmlResources(html, decode): the resource events alone (the extractor's resources mode) of a string or a latin1 Buffer, or null. */
napi_value nwax_html_resources_binding(napi_env env, napi_callback_info info);
/* decodeUtf8(bytes, bomAt): the string utf8-decode.h gives (for the tests that hold it to TextDecoder). */
napi_value nwax_decode_utf8_binding(napi_env env, napi_callback_info info);

#endif
