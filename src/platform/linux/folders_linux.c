/* App folders on Linux (platform_api.h: platform_folder_rules), each in the
 * order the app looks: Ollama (envconfig: OLLAMA_MODELS, else ~/.ollama/models;
 * the Linux installer's service user has its home at /usr/share/ollama), LM
 * Studio (~/.lmstudio/models, older ~/.cache/lm-studio/models), the HF cache
 * as llama.cpp resolves -hf (common/hf-cache.cpp:37-65), Handy (Tauri's
 * app data folder, ~/.local/share/com.pais.handy). */
#include "platform.h"

#include "core/util.h"

const struct platform_folder_rule platform_folder_rules[] = {
	{PLATFORM_FOLDER_OLLAMA_MODELS, "OLLAMA_MODELS", ""},
	{PLATFORM_FOLDER_OLLAMA_MODELS, "HOME", "/.ollama/models"},
	{PLATFORM_FOLDER_OLLAMA_MODELS, NULL, "/usr/share/ollama/.ollama/models"},
	{PLATFORM_FOLDER_OLLAMA_LOG, "HOME", "/.ollama/logs/server.log"},
	{PLATFORM_FOLDER_LMSTUDIO_MODELS, "HOME", "/.lmstudio/models"},
	{PLATFORM_FOLDER_LMSTUDIO_MODELS, "HOME", "/.cache/lm-studio/models"},
	{PLATFORM_FOLDER_HF_HUB, "LLAMA_CACHE", ""},
	{PLATFORM_FOLDER_HF_HUB, "HF_HUB_CACHE", ""},
	{PLATFORM_FOLDER_HF_HUB, "HUGGINGFACE_HUB_CACHE", ""},
	{PLATFORM_FOLDER_HF_HUB, "HF_HOME", "/hub"},
	{PLATFORM_FOLDER_HF_HUB, "XDG_CACHE_HOME", "/huggingface/hub"},
	{PLATFORM_FOLDER_HF_HUB, "HOME", "/.cache/huggingface/hub"},
	{PLATFORM_FOLDER_HANDY_DATA, "HOME", "/.local/share/com.pais.handy"},
	{PLATFORM_FOLDER_HANDY_LOGS, "XDG_DATA_HOME", "/com.pais.handy/logs"},
	{PLATFORM_FOLDER_HANDY_LOGS, "HOME", "/.local/share/com.pais.handy/logs"},
};
const size_t platform_n_folder_rules = ARRAY_LEN(platform_folder_rules);
