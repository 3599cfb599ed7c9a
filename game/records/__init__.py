"""Game records: Tenhou mjlog XML, tenhou.net/6 JSON and mjai JSONL into one mjai stream."""
