# recall-state.svg and recall-state.png, written by attnzoo; rerun with `gnuplot recall-state.gp` in this folder.
$s0 << EOD
131584 98.65
263168 99.7437
526336 99.7687
EOD
$s1 << EOD
131584 98.775
263168 99.7375
526336 99.85
EOD
$s2 << EOD
197120 4.9125
394240 7.03125
788480 6.7875
EOD
$s3 << EOD
3584 6.36875
4864 4.25625
5632 6.7625
9728 64.7375
9728 64.7375
17920 75.5375
34304 75.4313
35840 94.875
EOD
$s4 << EOD
10240 0.43125
18432 1.29375
33792 63.4438
34816 7.475
67584 70.7687
67584 70.7687
133120 94.3063
135168 74.0375
EOD
$s5 << EOD
66560 4.0625
133120 5.9625
EOD
$s6 << EOD
5376 16.1
9728 17.0813
18432 32.1062
24960 10.375
35840 52.1812
70656 91.3312
EOD
$s7 << EOD
9728 6.00625
18432 6.1375
35328 4.1875
35840 85.975
70656 30.9187
70656 30.9187
137216 99.525
140288 76.475
EOD
$s8 << EOD
34816 0.5375
67584 1.0875
131584 1.6875
133120 1.85
263168 2.025
526336 1.45625
EOD
$s9 << EOD
66048 3.9875
132096 6.33125
264192 7.00625
EOD

set terminal svg size 900,480 dynamic noenhanced font 'Helvetica,13' background rgb 'white'
set output 'recall-state.svg'
set title 'MQAR at T 256, 16 pairs: accuracy against the state kept while decoding'
set logscale x 2
set yrange [0:105]
set xlabel 'decoding state (bytes, measured)'
set ylabel 'test accuracy (%)'
set key outside right
plot $s0 using 1:2 with linespoints title "flash", $s1 using 1:2 with linespoints title "full", $s2 using 1:2 with linespoints title "gmlp", $s3 using 1:2 with linespoints title "linear", $s4 using 1:2 with linespoints title "local", $s5 using 1:2 with linespoints title "longformer", $s6 using 1:2 with linespoints title "performer", $s7 using 1:2 with linespoints title "rfa", $s8 using 1:2 with linespoints title "strided", $s9 using 1:2 with linespoints title "synthesizer"

unset output
set terminal pngcairo size 900,480 noenhanced font 'Helvetica,11' background rgb 'white'
set output 'recall-state.png'
set title 'MQAR at T 256, 16 pairs: accuracy against the state kept while decoding'
set logscale x 2
set yrange [0:105]
set xlabel 'decoding state (bytes, measured)'
set ylabel 'test accuracy (%)'
set key outside right
plot $s0 using 1:2 with linespoints title "flash", $s1 using 1:2 with linespoints title "full", $s2 using 1:2 with linespoints title "gmlp", $s3 using 1:2 with linespoints title "linear", $s4 using 1:2 with linespoints title "local", $s5 using 1:2 with linespoints title "longformer", $s6 using 1:2 with linespoints title "performer", $s7 using 1:2 with linespoints title "rfa", $s8 using 1:2 with linespoints title "strided", $s9 using 1:2 with linespoints title "synthesizer"

unset output
