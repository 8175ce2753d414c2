-- An OpenCode database in the shape of packages/opencode/src/session/
-- session.sql.ts (columns the importer reads; `data` holds the message or
-- part JSON without its ids).  Rows are inserted out of order on purpose.
CREATE TABLE `session` (`id` text PRIMARY KEY, `project_id` text NOT NULL, `parent_id` text, `slug` text NOT NULL, `directory` text NOT NULL, `title` text NOT NULL, `version` text NOT NULL, `time_created` integer NOT NULL, `time_updated` integer NOT NULL);
CREATE TABLE `message` (`id` text PRIMARY KEY, `session_id` text NOT NULL, `time_created` integer NOT NULL, `time_updated` integer NOT NULL, `data` text NOT NULL);
CREATE TABLE `part` (`id` text PRIMARY KEY, `message_id` text NOT NULL, `session_id` text NOT NULL, `time_created` integer NOT NULL, `time_updated` integer NOT NULL, `data` text NOT NULL);
INSERT INTO `session` VALUES ('ses_2', 'prj', 'ses_1', 'sub', '/q', 'Subagent: check build', '1.1.0', 1760000050000, 1760000060000);
INSERT INTO `session` VALUES ('ses_1', 'prj', NULL, 'main', '/q', 'Fix the build', '1.1.0', 1760000000000, 1760000090000);
INSERT INTO `message` VALUES ('msg_b', 'ses_1', 1760000001000, 1760000009000, '{"role":"assistant","time":{"created":1760000001000},"modelID":"gpt-5","providerID":"openai","tokens":{"input":900,"output":50,"reasoning":0,"cache":{"read":0,"write":0}}}');
INSERT INTO `message` VALUES ('msg_a', 'ses_1', 1760000000000, 1760000000000, '{"role":"user","time":{"created":1760000000000},"agent":"build"}');
INSERT INTO `message` VALUES ('msg_c', 'ses_1', 1760000010000, 1760000010000, '{"role":"user","time":{"created":1760000010000}}');
INSERT INTO `message` VALUES ('msg_z', 'ses_2', 1760000051000, 1760000051000, '{"role":"user","time":{"created":1760000051000}}');
INSERT INTO `part` VALUES ('prt_2', 'msg_b', 'ses_1', 1760000002000, 1760000003000, '{"type":"tool","callID":"c1","tool":"write","state":{"status":"completed","input":{"filePath":"Makefile","content":"all:\n\tcc -o a a.c\n"},"output":"","title":"Makefile","metadata":{},"time":{"start":1760000002000,"end":1760000002500}}}');
INSERT INTO `part` VALUES ('prt_1', 'msg_b', 'ses_1', 1760000001500, 1760000001500, '{"type":"text","text":"Adding a Makefile."}');
INSERT INTO `part` VALUES ('prt_3', 'msg_b', 'ses_1', 1760000004000, 1760000005000, '{"type":"tool","callID":"c2","tool":"bash","state":{"status":"completed","input":{"command":"make"},"output":"cc -o a a.c\n","title":"make","metadata":{"exit":0},"time":{"start":1760000004000,"end":1760000005000}}}');
INSERT INTO `part` VALUES ('prt_0', 'msg_a', 'ses_1', 1760000000000, 1760000000000, '{"type":"text","text":"the build is broken, fix it"}');
INSERT INTO `part` VALUES ('prt_4', 'msg_c', 'ses_1', 1760000010000, 1760000010000, '{"type":"compaction","auto":true}');
INSERT INTO `part` VALUES ('prt_5', 'msg_c', 'ses_1', 1760000010000, 1760000010000, 'not json');
INSERT INTO `part` VALUES ('prt_9', 'msg_z', 'ses_2', 1760000051000, 1760000051000, '{"type":"text","text":"run make and report"}');
