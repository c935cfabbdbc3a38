/* Node-API binding of the HTML extractor (html-extract.h): `htmlExtract` of the addon. */
#ifndef NWAX_HTML_BINDING_H
#define NWAX_HTML_BINDING_H

#define NAPI_VERSION 8
#include <node_api.h>

napi_value nwax_html_extract_binding(napi_env env, napi_callback_info info);

#endif
