/* App folders on macOS (platform_api.h: platform_folder_rules), in the
 * order each app looks: Ollama's models in OLLAMA_MODELS or ~/.ollama/models
 * and its log ~/.ollama/logs/server.log (Ollama's troubleshooting page: the
 * same on macOS as on Linux); LM Studio's ~/.lmstudio/models (older
 * ~/.cache/lm-studio/models); the Hugging Face hub as on Linux; Handy's app
 * data in ~/Library/Application Support/com.pais.handy (Tauri's app data
 * folder on macOS) and its log ~/Library/Logs/com.pais.handy/handy.log
 * (tauri-plugin-log's LogDir on macOS). Not checked on a Mac
 * (docs/validation.md). */
#include "platform.h"

#include "core/util.h"

const struct platform_folder_rule platform_folder_rules[] = {
	{PLATFORM_FOLDER_OLLAMA_MODELS, "OLLAMA_MODELS", ""},
	{PLATFORM_FOLDER_OLLAMA_MODELS, "HOME", "/.ollama/models"},
	{PLATFORM_FOLDER_OLLAMA_LOG, "HOME", "/.ollama/logs/server.log"},
	{PLATFORM_FOLDER_LMSTUDIO_MODELS, "HOME", "/.lmstudio/models"},
	{PLATFORM_FOLDER_LMSTUDIO_MODELS, "HOME", "/.cache/lm-studio/models"},
	{PLATFORM_FOLDER_HF_HUB, "LLAMA_CACHE", ""},
	{PLATFORM_FOLDER_HF_HUB, "HF_HUB_CACHE", ""},
	{PLATFORM_FOLDER_HF_HUB, "HUGGINGFACE_HUB_CACHE", ""},
	{PLATFORM_FOLDER_HF_HUB, "HF_HOME", "/hub"},
	{PLATFORM_FOLDER_HF_HUB, "XDG_CACHE_HOME", "/huggingface/hub"},
	{PLATFORM_FOLDER_HF_HUB, "HOME", "/.cache/huggingface/hub"},
	{PLATFORM_FOLDER_HANDY_DATA, "HOME", "/Library/Application Support/com.pais.handy"},
	{PLATFORM_FOLDER_HANDY_LOGS, "HOME", "/Library/Logs/com.pais.handy"},
};
const size_t platform_n_folder_rules = ARRAY_LEN(platform_folder_rules);
