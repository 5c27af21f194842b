/* App folders on Windows (platform_api.h: platform_folder_rules), each in
 * the order the app looks, read from the process's own environment:
 * - Ollama: OLLAMA_MODELS, else %USERPROFILE%\.ollama\models (its envconfig
 *   takes the home folder on every OS); its server log in
 *   %LOCALAPPDATA%\Ollama\server.log (Ollama's troubleshooting page;
 *   ../shared/llm-memory.md);
 * - LM Studio: %USERPROFILE%\.lmstudio\models (its docs name ~/.lmstudio
 *   and %USERPROFILE%/.lmstudio/bin for Windows), older versions
 *   %USERPROFILE%\.cache\lm-studio\models;
 * - the Hugging Face cache as on Linux, the home folder being USERPROFILE
 *   (huggingface_hub expands "~", which Python reads from USERPROFILE);
 * - Handy: Tauri's app data folder, %APPDATA%\com.pais.handy.
 * Not checked on real Windows (docs/validation.md). */
#include "platform.h"

#include "core/util.h"

const struct platform_folder_rule platform_folder_rules[] = {
	{PLATFORM_FOLDER_OLLAMA_MODELS, "OLLAMA_MODELS", ""},
	{PLATFORM_FOLDER_OLLAMA_MODELS, "USERPROFILE", "\\.ollama\\models"},
	{PLATFORM_FOLDER_OLLAMA_LOG, "LOCALAPPDATA", "\\Ollama\\server.log"},
	{PLATFORM_FOLDER_LMSTUDIO_MODELS, "USERPROFILE", "\\.lmstudio\\models"},
	{PLATFORM_FOLDER_LMSTUDIO_MODELS, "USERPROFILE", "\\.cache\\lm-studio\\models"},
	{PLATFORM_FOLDER_HF_HUB, "LLAMA_CACHE", ""},
	{PLATFORM_FOLDER_HF_HUB, "HF_HUB_CACHE", ""},
	{PLATFORM_FOLDER_HF_HUB, "HUGGINGFACE_HUB_CACHE", ""},
	{PLATFORM_FOLDER_HF_HUB, "HF_HOME", "\\hub"},
	{PLATFORM_FOLDER_HF_HUB, "XDG_CACHE_HOME", "\\huggingface\\hub"},
	{PLATFORM_FOLDER_HF_HUB, "USERPROFILE", "\\.cache\\huggingface\\hub"},
	{PLATFORM_FOLDER_HANDY_DATA, "APPDATA", "\\com.pais.handy"},
	{PLATFORM_FOLDER_HANDY_LOGS, "LOCALAPPDATA", "\\com.pais.handy\\logs"}, /* Tauri 2 */
	{PLATFORM_FOLDER_HANDY_LOGS, "APPDATA", "\\com.pais.handy\\logs"},      /* Tauri 1 */
};
const size_t platform_n_folder_rules = ARRAY_LEN(platform_folder_rules);
