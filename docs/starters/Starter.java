// A complete dungeon team in one Java file (Java 17, no library): the place to start in Java.
//
//     javac Starter.java && java Starter HOST PORT TEAM [MATCH [TOKEN]]
//     java Starter.java HOST PORT TEAM [MATCH [TOKEN]]        (runs the source directly)
//
// The arguments are the ones a tournament gives a team program; ARENA_HOST, ARENA_PORT,
// ARENA_TEAM, ARENA_MATCH and ARENA_TOKEN are used when an argument is absent. It connects six
// sockets, one per agent (one thread each), and every agent walks a shortest path to its team's
// shrine, answering each trap problem with a short WalkSAT search. Make it smarter from here.
//
// The protocol is in docs/protocol.md. What every client must do, and this one does: read every
// socket all the time, read whole lines whatever their size (the `dungeon` line is 60-93 KB:
// BufferedReader.readLine grows its buffer), forget a commitment when an enemy kills the agent
// (`moved` with reason `attacked`), and exit after `game_over`.
//
// Java has no JSON parser in its standard library; the server's messages are flat and small, so
// a few regular expressions read them (use a real JSON library in a bigger program).

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

public class Starter {
    static final int AGENTS = 6;
    static final Pattern TYPE = Pattern.compile("\"type\"\\s*:\\s*\"(\\w+)\"");
    static final Pattern INT = Pattern.compile("-?\\d+");

    /** The text of the JSON value of {@code key} (a number, a word or a bracketed list). */
    static String field(String line, String key) {
        int at = line.indexOf("\"" + key + "\"");
        if (at < 0) return null;
        int i = line.indexOf(':', at) + 1;
        while (Character.isWhitespace(line.charAt(i))) i++;
        if (line.charAt(i) == '[') {
            int depth = 0;
            for (int j = i; j < line.length(); j++) {
                char c = line.charAt(j);
                if (c == '[') depth++;
                if (c == ']' && --depth == 0) return line.substring(i, j + 1);
            }
        }
        if (line.charAt(i) == '"') return line.substring(i + 1, line.indexOf('"', i + 1));
        int j = i;
        while (j < line.length() && ",}] ".indexOf(line.charAt(j)) < 0) j++;
        return line.substring(i, j);
    }

    /** Every integer in a JSON text (for lists of ints: edges, traps, start, shrine). */
    static int[] ints(String text) {
        List<Integer> found = new ArrayList<>();
        Matcher m = INT.matcher(text);
        while (m.find()) found.add(Integer.parseInt(m.group()));
        return found.stream().mapToInt(Integer::intValue).toArray();
    }

    /** The first node after {@code source} on a shortest path to {@code target}, or -1. */
    static int nextStep(List<List<Integer>> adjacency, int source, int target, int[] banned) {
        int[] previous = new int[adjacency.size()];
        Arrays.fill(previous, -1);
        previous[source] = source;
        for (int b : banned) if (b != source) previous[b] = b; // never entered
        ArrayDeque<Integer> queue = new ArrayDeque<>();
        queue.add(source);
        while (!queue.isEmpty()) {
            int node = queue.poll();
            if (node == target) {
                while (previous[node] != source) node = previous[node];
                return node;
            }
            for (int next : adjacency.get(node)) {
                if (previous[next] == -1) {
                    previous[next] = node;
                    queue.add(next);
                }
            }
        }
        return -1;
    }

    /** WalkSAT over DIMACS traps; element i of the result is switch i+1. */
    static boolean[] solve(int switches, int[] literals, Random rng) {
        int traps = literals.length / 3;
        boolean[] value = new boolean[switches + 1];
        for (int i = 1; i <= switches; i++) value[i] = rng.nextBoolean();
        boolean[] best = value.clone();
        int bestActive = traps + 1;
        for (int flip = 0; flip < 3000; flip++) {
            List<Integer> active = new ArrayList<>();
            for (int t = 0; t < traps; t++) if (!satisfied(value, literals, t)) active.add(t);
            if (active.size() < bestActive) {
                bestActive = active.size();
                best = value.clone();
            }
            if (active.isEmpty()) break;
            int trap = active.get(rng.nextInt(active.size()));
            int pick = Math.abs(literals[3 * trap + rng.nextInt(3)]);
            if (rng.nextDouble() >= 0.4) { // the flip that leaves the fewest active traps
                int fewest = Integer.MAX_VALUE;
                for (int k = 0; k < 3; k++) {
                    int s = Math.abs(literals[3 * trap + k]);
                    value[s] = !value[s];
                    int count = 0;
                    for (int t = 0; t < traps; t++) if (!satisfied(value, literals, t)) count++;
                    value[s] = !value[s];
                    if (count < fewest) {
                        fewest = count;
                        pick = s;
                    }
                }
            }
            value[pick] = !value[pick];
        }
        return Arrays.copyOfRange(best, 1, switches + 1);
    }

    static boolean satisfied(boolean[] value, int[] literals, int trap) {
        for (int k = 0; k < 3; k++) {
            int lit = literals[3 * trap + k];
            if (value[Math.abs(lit)] == (lit > 0)) return true;
        }
        return false;
    }

    static class Agent extends Thread {
        final Socket socket;
        final BufferedReader in;
        final OutputStream out;
        final int team;
        final int number;
        final Random rng;
        String winner = "?";

        Agent(String host, int port, int team, int number, String match, String token)
                throws IOException {
            this.socket = new Socket(host, port);
            this.in = new BufferedReader(
                    new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8));
            this.out = socket.getOutputStream();
            this.team = team;
            this.number = number;
            this.rng = new Random(number);
            StringBuilder start = new StringBuilder("{\"type\":\"start\",\"team\":" + team
                    + ",\"agent\":" + number);
            if (!match.isEmpty()) start.append(",\"match\":\"").append(match).append('"');
            if (!token.isEmpty()) start.append(",\"token\":\"").append(token).append('"');
            send(start.append('}').toString());
        }

        void send(String line) throws IOException {
            out.write((line + "\n").getBytes(StandardCharsets.UTF_8));
            out.flush();
        }

        /** The next non-blank line, or null at the end of the stream. */
        String receive() throws IOException {
            String line;
            do {
                line = in.readLine();
            } while (line != null && line.isBlank());
            return line;
        }

        static String type(String line) {
            Matcher m = TYPE.matcher(line);
            return m.find() ? m.group(1) : "";
        }

        @Override
        public void run() {
            try {
                play();
            } catch (IOException | RuntimeException error) {
                System.err.println("agent " + number + ": " + error);
            } finally {
                try {
                    socket.close();
                } catch (IOException ignored) {
                    // closing anyway
                }
            }
        }

        void play() throws IOException {
            String line = receive(); // nothing comes before `dungeon` (a start gets no reply)
            while (line != null && !type(line).equals("dungeon")) {
                if (type(line).equals("error")) System.err.println("agent " + number + ": " + line);
                line = receive();
            }
            if (line == null) return;
            // nodes: [[x, y], ...]; one "[" per node plus the outer one.
            int nodeCount = (int) field(line, "nodes").chars().filter(c -> c == '[').count() - 1;
            List<List<Integer>> adjacency = new ArrayList<>();
            for (int i = 0; i < nodeCount; i++) adjacency.add(new ArrayList<>());
            int[] edges = ints(field(line, "edges"));
            for (int i = 0; i + 1 < edges.length; i += 2) { // undirected
                adjacency.get(edges[i]).add(edges[i + 1]);
                adjacency.get(edges[i + 1]).add(edges[i]);
            }
            int[] start = ints(field(line, "start"));
            int[] shrine = ints(field(line, "shrine"));
            int enemy = 1 - team;
            int[] banned = {start[enemy], shrine[enemy]}; // never allowed
            int target = shrine[team];
            int here = start[team];
            // Requests sent and not answered yet: a `move` is answered by `sat` (then our
            // `solution` by `moved` crossed/trap) or by `error`. A `moved` with reason `attacked`
            // answers nothing: an enemy killed us and the commitment is gone (a solution already
            // on its way then gets a `not_committed` error, which answers it).
            int pending = 0;
            while (true) {
                if (pending == 0 && here != target) {
                    int next = nextStep(adjacency, here, target, banned);
                    if (next >= 0) {
                        send("{\"type\":\"move\",\"to\":" + next + "}");
                        pending = 1;
                    }
                }
                line = receive();
                if (line == null) return;
                switch (type(line)) {
                    case "sat" -> {
                        boolean[] assignment = solve(
                                Integer.parseInt(field(line, "switches")),
                                ints(field(line, "traps")),
                                rng);
                        StringBuilder reply = new StringBuilder("{\"type\":\"solution\",\"assignment\":[");
                        for (int i = 0; i < assignment.length; i++) {
                            reply.append(i > 0 ? "," : "").append(assignment[i]);
                        }
                        send(reply.append("]}").toString());
                    }
                    case "moved" -> {
                        here = Integer.parseInt(field(line, "location"));
                        if (!field(line, "reason").equals("attacked")) pending = 0;
                    }
                    case "error" -> pending = 0; // the request changed nothing: choose again
                    case "game_over" -> {
                        winner = field(line, "winner");
                        return;
                    }
                    default -> { } // `enemy` sightings: a smarter team would use them
                }
            }
        }
    }

    static String arg(String[] args, int index, String variable, String fallback) {
        if (args.length > index) return args[index];
        String value = System.getenv(variable);
        return value != null ? value : fallback;
    }

    public static void main(String[] args) throws Exception {
        String host = arg(args, 0, "ARENA_HOST", "127.0.0.1");
        int port = Integer.parseInt(arg(args, 1, "ARENA_PORT", "7700"));
        int team = Integer.parseInt(arg(args, 2, "ARENA_TEAM", "0"));
        String match = arg(args, 3, "ARENA_MATCH", "");
        String token = arg(args, 4, "ARENA_TOKEN", "");
        Agent[] agents = new Agent[AGENTS];
        for (int i = 0; i < AGENTS; i++) agents[i] = new Agent(host, port, team, i, match, token);
        for (Agent agent : agents) agent.start();
        for (Agent agent : agents) agent.join();
        System.out.println("team " + team + ": game over, winner " + agents[0].winner);
    }
}
