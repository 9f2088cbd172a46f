# recall-dim.svg and recall-dim.png, written by attnzoo; rerun with `gnuplot recall-dim.gp` in this folder.
$d0 << EOD
64 99.7031 0.0486136
EOD
$d1 << EOD
64 99.7312 0.0176777
EOD
$d2 << EOD
64 70.0875 0.963433
EOD
$d3 << EOD
64 1.925 0.141421
EOD
$d4 << EOD
64 6.67188 1.00321
EOD
$d5 << EOD
64 35.4281 41.4497
EOD
$d6 << EOD
64 48.3969 53.7711
EOD
$d7 << EOD
64 62.65 44.8748
EOD
$d8 << EOD
64 6.225 0.15026
EOD
$d9 << EOD
64 6.8125 0.309359
EOD

set terminal svg size 500,420 dynamic noenhanced font 'Helvetica,13' background rgb 'white'
set output 'recall-dim.svg'
set multiplot layout 1,1 title 'MQAR: test accuracy against model dim'
set logscale x 2
set yrange [0:105]
set xlabel 'model dim'
set key off
set key outside right font ',8'
set title 'T 256, 16 pairs'
plot $d0 using 1:2 with linespoints title "full", $d1 using 1:2 with linespoints title "flash", $d2 using 1:2 with linespoints title "local", $d3 using 1:2 with linespoints title "strided", $d4 using 1:2 with linespoints title "longformer", $d5 using 1:2 with linespoints title "linear", $d6 using 1:2 with linespoints title "performer", $d7 using 1:2 with linespoints title "rfa", $d8 using 1:2 with linespoints title "synthesizer", $d9 using 1:2 with linespoints title "gmlp"
unset multiplot

unset output
set terminal pngcairo size 500,420 noenhanced font 'Helvetica,11' background rgb 'white'
set output 'recall-dim.png'
set multiplot layout 1,1 title 'MQAR: test accuracy against model dim'
set logscale x 2
set yrange [0:105]
set xlabel 'model dim'
set key off
set key outside right font ',8'
set title 'T 256, 16 pairs'
plot $d0 using 1:2 with linespoints title "full", $d1 using 1:2 with linespoints title "flash", $d2 using 1:2 with linespoints title "local", $d3 using 1:2 with linespoints title "strided", $d4 using 1:2 with linespoints title "longformer", $d5 using 1:2 with linespoints title "linear", $d6 using 1:2 with linespoints title "performer", $d7 using 1:2 with linespoints title "rfa", $d8 using 1:2 with linespoints title "synthesizer", $d9 using 1:2 with linespoints title "gmlp"
unset multiplot

unset output
